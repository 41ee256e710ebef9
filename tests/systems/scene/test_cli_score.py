"""`tether scene score` prints the metrics and exits 2 on bad input."""

from __future__ import annotations

import json

import numpy as np
import pytest
from click.testing import CliRunner

cv2 = pytest.importorskip("cv2")
pytest.importorskip("skimage")

from tether.cli.hub import main  # noqa: E402


def test_score_json_and_bad_input(tmp_path) -> None:
    goal, img = tmp_path / "goal.png", tmp_path / "img.png"
    cv2.imwrite(str(goal), np.zeros((16, 16, 3), np.uint8))
    cv2.imwrite(str(img), np.full((16, 16, 3), 255, np.uint8))
    result = CliRunner().invoke(main, ["scene", "score", str(img), str(goal), "--json"])
    assert result.exit_code == 0, result.output
    out = json.loads(result.output)
    assert out["pl"] == 1.0 and out["psnr"] == 0.0 and out["lpips"] == "unavailable"
    missing = CliRunner().invoke(main, ["scene", "score", str(tmp_path / "no.png"), str(goal)])
    assert missing.exit_code == 2
