#pragma once
// Long batch loops free and allocate the same large tensors (megabytes of attention maps) every
// batch. glibc returns such blocks to the kernel and the next batch pays page faults for them
// again (about 6% of a MiniLM corpus run here); keeping them in the heap avoids that, on every
// thread, and torch's tensors of a megabyte and more are kept mapped for the next ones whatever
// their sizes (base/host_memory_pool.h: in the heap they rarely fit again). A process-wide
// setting, so it is the program's choice: the explorer (before each forward, as the text is long
// or not), the corpus command and their benchmarks make it.
namespace attnscope {

void keep_freed_memory_for_reuse();
// Much of that undone, for a long text: its blocks are tens of megabytes, made in an order that
// varies from one step to the next (a head's map made whole, the layer's activations, a view's
// tiles), and kept in the heap once freed they lay resident beside those in use (the explorer's
// Pairs view of a ModernBERT-base-sized model with pairs from a lens, peak resident memory: 2,639
// MiB at 4,096 tokens, 2,301 MiB without; 3,608 and 3,497 at 8,192). The blocks of rows a scan
// goes through over and over stay in the heap; the tensors the pool kept are unmapped, and it
// keeps none until keep_freed_memory_for_reuse.
void return_freed_memory();
// The heap one text's run wants, set before its forward by the explorer (and by the command line
// for a long text, app/cli/run_options.cpp): freed memory kept for reuse where its maps are kept
// (an edit allocates the same large tensors again), and for a long text the blocks of rows kept too
// but the rest returned (return_freed_memory).
// Without it glibc maps each block of rows (up to 32 MB) for itself and returns it when freed, and
// the page faults of the next add up: `attnscope-cli stats` at 4,096 tokens of a ModernBERT-base-
// sized model took 40.2 s without it, 24.0 s with it.
void tune_heap_for_run(bool maps_kept);

}  // namespace attnscope
