#!/usr/bin/env bash
# Runs every test: unit tests, IR/C snapshots, error paths, and the end-to-end gradient
# check of every example (compiled with and without -fopenmp).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo fmt --all -- --check
cargo test --workspace --all-targets "$@"
