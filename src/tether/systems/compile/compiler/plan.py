"""Which builds a compile runs, under which protocol, and which of them share an H0.

    for b in build_plan(builds=2, protocol="AB"):
        b.index, b.protocol, b.replicate, b.h0_from, b.h0_with
    # 0 A 0 None "1" · 1 B 0 "0" None · 2 A 1 None "3" · 3 B 1 "2" None

Protocol A or B: `builds` builds, build k the replicate k. Protocol "AB" (the paper's
Tables 17, 23 and 25 compare the two reflection protocols from the same initial
harness): each replicate r is two builds, 2r under protocol A and 2r+1 under protocol
B. Build 2r runs round 0 as any build does (its teacher writes H0, with the restarts the
restart rule asks for, and the student scores it); build 2r+1 reads that round 0 from
build 2r's records instead of asking its teacher (compiler/teacher.py: `round0_from`),
so it starts its own reflection rounds from the same H0, the same incumbent and the
same evidence. Both builds of a replicate have the teacher seed of the replicate
(seed + r). Nothing is scored twice: a harness's scores are the directory's, shared by
its builds (compiler/run.py).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["PlannedBuild", "build_plan"]


@dataclass(frozen=True)
class PlannedBuild:
    index: int
    protocol: str  # "A" or "B"
    replicate: int
    #: the build whose round 0 (H0) this build reads (None: it writes its own)
    h0_from: str | None = None
    #: the build that reads this build's round 0 (None: none does)
    h0_with: str | None = None

    @property
    def shared_h0(self) -> dict[str, str] | None:
        """What the build records of a shared H0: the build that wrote it and the one
        that read it (None when its H0 is its own alone)."""
        if self.h0_from is not None:
            return {"written_by": self.h0_from, "read_by": str(self.index)}
        if self.h0_with is not None:
            return {"written_by": str(self.index), "read_by": self.h0_with}
        return None


def build_plan(builds: int, protocol: str) -> list[PlannedBuild]:
    """The compile's builds in the order they run (see the module docstring)."""
    if protocol != "AB":
        return [PlannedBuild(k, protocol, k) for k in range(builds)]
    plan: list[PlannedBuild] = []
    for r in range(builds):
        plan.append(PlannedBuild(2 * r, "A", r, h0_with=str(2 * r + 1)))
        plan.append(PlannedBuild(2 * r + 1, "B", r, h0_from=str(2 * r)))
    return plan
