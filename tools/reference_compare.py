#!/usr/bin/env python3
"""An independent implementation of docs/compare.md's per-head measures for two models on one
text, in numpy on the reference model's outputs (transformers, eager attention; the model runs of
tools/reference_analysis.py), checked against `attnscope-cli compare --json`. It shares no code with
the C++ core. Exits 1 and says where when a measure differs by more than --tolerance.

Run: .venv/bin/python tools/reference_compare.py --model-a DIR --model-b DIR --text TEXT --json FILE
"""
import argparse
import json
import sys

import numpy as np

from reference_analysis import high_similarity, run_model, similarity


def linear_cka(x, y):
    """||Yc^T Xc||_F^2 / (||Xc^T Xc||_F ||Yc^T Yc||_F): the feature-space form, not the core's Gram form."""
    xc, yc = x - x.mean(axis=0), y - y.mean(axis=0)
    top = np.linalg.norm(yc.T @ xc) ** 2
    bottom = np.linalg.norm(xc.T @ xc) * np.linalg.norm(yc.T @ yc)
    return None if bottom == 0 else top / bottom


def head_measures(run_a, run_b, layer, head, tau):
    attention_a, attention_b = run_a[3][layer, head], run_b[3][layer, head]
    c_a, c_b = run_a[4][layer, head], run_b[4][layer, head]
    s_a, s_b = similarity(c_a)[0], similarity(c_b)[0]
    valid = np.ones(len(run_a[0]), dtype=bool)
    pairs_a = {(i, j) for i, j, _ in high_similarity(s_a, valid, tau)[1]}
    pairs_b = {(i, j) for i, j, _ in high_similarity(s_b, valid, tau)[1]}
    union = pairs_a | pairs_b
    return {
        "cka": linear_cka(c_a, c_b),
        "attention_cosine": float(np.sum(attention_a * attention_b) / (np.linalg.norm(attention_a) * np.linalg.norm(attention_b))),
        "attention_max_difference": float(np.abs(attention_b - attention_a).max()),
        "similarity_relative_change": float(np.linalg.norm(s_b - s_a) / np.linalg.norm(s_a)),
        "jaccard": len(pairs_a & pairs_b) / len(union) if union else None,
    }


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--model-a", required=True)
    p.add_argument("--model-b", required=True)
    p.add_argument("--text", required=True)
    p.add_argument("--json", required=True, help="attnscope-cli compare --json output")
    p.add_argument("--tolerance", type=float, default=1e-5)
    args = p.parse_args()
    ours = json.load(open(args.json))
    run_a, run_b = run_model(args.model_a, args.text), run_model(args.model_b, args.text)
    tau = ours["settings"]["tau"]
    worst, failures = 0.0, []
    for head in ours["heads"]:
        ref = head_measures(run_a, run_b, head["layer"], head["head"], tau)
        for key, value in ref.items():
            mine = head[key]
            if (value is None) != (mine is None):
                failures.append(f"layer {head['layer']} head {head['head']} {key}: ours {mine}, reference {value}")
                continue
            if value is not None:
                worst = max(worst, abs(mine - value))
                if abs(mine - value) > args.tolerance:
                    failures.append(f"layer {head['layer']} head {head['head']} {key}: ours {mine}, reference {value}")
    print(f"{len(ours['heads'])} heads, largest difference {worst:.2e}")
    for f in failures[:20]:
        print(f, file=sys.stderr)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
