#include "model/reproducible_products.h"

#include <cstdlib>

namespace attnscope {

void ask_for_reproducible_products() {
  // overwrite = 0: a user's own MKL_CBWR (to compare branches, say) is kept.
  setenv("MKL_CBWR", "AUTO,STRICT", 0);
}

}  // namespace attnscope
