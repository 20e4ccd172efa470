#pragma once
// The explorer's forward cuts its products into slices so that a stale run stops soon
// (bert_model.cpp), and its captures must be those of the command line's forward in one piece,
// bit for bit: the same text must show the same pairs in both. MKL does not promise that by
// default: with two threads it splits the inner (summed) dimension of a product whose outputs are
// few, as a slice's are, so a slice of the feed-forward's down projection summed in another order
// (found on torch 2.15's MKL 2024.2; a fixed thread count did not help). MKL's strict conditional
// numerical reproducibility sums every output in one order whatever the threads and the shape.
namespace attnscope {

// Asks MKL for strict reproducibility (MKL_CBWR=AUTO,STRICT) unless the user set MKL_CBWR. MKL
// reads it once, at its first call: call this before any product. Other BLAS libraries ignore it.
void ask_for_reproducible_products();

}  // namespace attnscope
