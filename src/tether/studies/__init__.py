"""Code that exists only to reproduce one paper, one package per study.

General instruments, strategies and suites live in their own packages; a study's
package holds what only that paper needs (its recorded data formats, its recorded
results and the helpers that recompute its tables from them).
"""
