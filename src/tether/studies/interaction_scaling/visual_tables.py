"""The interaction-scaling paper's Table 6, recomputed from its recorded defect counts.

The paper's rules, as its caption states them: mean defects per artifact over every
(task, seed) pair, single-shot against reviewed; the change in percent of the
single-shot total; a paired bootstrap 95% interval of that reduction with 10,000
resamples over the (task, seed) pairs (`tether.stats.paired_bootstrap(unit="pair")`);
a two-sided sign test over the decisive pairs.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tether.stats import N_RESAMPLES, PAIR_BOOTSTRAP_METHOD, SIGN_TEST_METHOD
from tether.studies.interaction_scaling.recorded_geometry import defect_reduction

MODALITIES = ("figures", "slides", "web", "animations")


def table6(data: Path, *, n_resamples: int = N_RESAMPLES) -> dict[str, Any]:
    rows = []
    for folder in MODALITIES:
        r = defect_reduction(data, folder, n_resamples=n_resamples, unit="pair")
        rows.append({"modality": folder, "n": r.n_pairs, "ss": round(r.mean_single_shot, 2),
                     "rev": round(r.mean_reviewed, 2), "delta_pct": round(r.change_pct),
                     # the paper prints the interval of the reduction, as positive percents
                     "ci": [round(-r.ci_high), round(-r.ci_low)],
                     "improved": r.improved, "regressed": r.regressed, "ties": r.ties,
                     "p": r.p_value})
    return {"convention": f"defects per artifact; delta_pct = 100 * (sum(rev) / sum(ss) - 1);"
                          f" ci: 95% interval of the reduction in %, {PAIR_BOOTSTRAP_METHOD}, "
                          f"{n_resamples} resamples; p: {SIGN_TEST_METHOD}",
            "rows": rows}
