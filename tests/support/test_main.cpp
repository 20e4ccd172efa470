// Every test program's main. MKL reads its reproducibility setting once, at its first product: a
// test that multiplies before any Transformer is built (which asks for it) would otherwise leave
// the program's later tests without it, and their two paths of one forward could differ in the
// last bit when the whole program runs (ctest runs each suite apart, so only then).
#include <gtest/gtest.h>

#include "model/reproducible_products.h"

int main(int argc, char** argv) {
  attnscope::ask_for_reproducible_products();
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
