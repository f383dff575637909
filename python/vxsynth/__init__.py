"""vxsynth's Python side: workload models (ACT, Diffusion Policy, pi0) and reference capture.

Python and the C++ side meet only through files (Kineto traces, ncu CSV, reference.json).
"""
