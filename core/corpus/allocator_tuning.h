#pragma once
// Long batch loops free and allocate the same large tensors (megabytes of attention maps) every
// batch. glibc returns such blocks to the kernel and the next batch pays page faults for them
// again (about 6% of a MiniLM corpus run here); keeping them in the heap avoids that, on every
// thread. A process-wide setting, so it is the program's choice: the explorer, the corpus command
// and their benchmarks make it.
namespace attnscope {

void keep_freed_memory_for_reuse();

}  // namespace attnscope
