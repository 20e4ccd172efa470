#pragma once
// libtorch's intra-op threads are GNU OpenMP teams, one team per thread that starts parallel work.
// When more team threads exist than cores, GNU OpenMP stops spinning between parallel regions and
// puts its threads to sleep after each one: the forward then pays about a hundred wake-ups (the
// explorer's 22 ms MiniLM forward took 30 ms beside a main thread that had a team of its own).
// A thread whose tensor work is light (a window's drawing thread) can give up its team.
namespace attnscope {

// Tensor operations started from the calling thread run on it alone from now on; other threads
// keep libtorch's thread count. False where the core is built without OpenMP (nothing to give up).
bool run_tensor_operations_on_this_thread_only();

}  // namespace attnscope
