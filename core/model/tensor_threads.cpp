#include "model/tensor_threads.h"

#include <ATen/Parallel.h>

#ifdef _OPENMP
#include <omp.h>
#endif

namespace attnscope {

bool run_tensor_operations_on_this_thread_only() {
#ifdef _OPENMP
  // libtorch sets the thread's OpenMP thread count once, on its first parallel work: done first,
  // so that it does not undo this. libtorch reads the count back per thread (get_num_threads).
  at::internal::lazy_init_num_threads();
  omp_set_num_threads(1);
  return true;
#else
  return false;
#endif
}

}  // namespace attnscope
