#pragma once
// Linear centred kernel alignment (Kornblith et al. 2019) between two representations of the
// same m tokens: X [m, p] and Y [m, q], rows = tokens, columns = features (p and q may differ).
//   Kc = (H X)(H X)^T, Lc = (H Y)(H Y)^T, H = I - 11^T / m (every column centred)
//   CKA(X, Y) = <Kc, Lc>_F / (||Kc||_F ||Lc||_F)   ( = ||Yc^T Xc||_F^2 / (||Xc^T Xc||_F ||Yc^T Yc||_F) )
// In [0, 1]; 1 when Y is X rotated, scaled or shifted. Undefined (NaN) when either side is the
// same vector for every token (its centred Gram matrix is 0). Taken in the second form: with the
// heads of a layer side by side, every Yc^T Xc of one layer is one matrix product (in float32, or
// float64 for float64 inputs; the squares are summed in float64).
#include <ATen/core/Tensor.h>

namespace attnscope {

// x: [m, p], y: [m, q] on one device.
double linear_cka(const at::Tensor& x, const at::Tensor& y);

// x: [..., m, p], y: [..., m, q]: the CKA of each pair x[k], y[k] only, [...] float64 (for one
// model on two texts, where head h is compared with head h alone).
at::Tensor paired_linear_cka(const at::Tensor& x, const at::Tensor& y);

// x: [..., K1, m, p], y: [..., K2, m, q] (the same leading dimensions, e.g. layers): CKA of every
// representation of x with every one of y, [..., K1, K2] float64 on x's device (NaN where undefined).
at::Tensor cross_linear_cka(const at::Tensor& x, const at::Tensor& y);

}  // namespace attnscope
