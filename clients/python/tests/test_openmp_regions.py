"""Tesseract's OpenMP parallel regions run inline with one OpenMP thread (Sources/COpenMPRegions
interposes libgomp's GOMP_parallel and GOMP_parallel_sections): the same text as through
libgomp, and the switch that measures the difference (LEGIBLE_OPENMP_REGIONS=libgomp) works.
Run on legible-floor, which reads with the same recognizer stack as legibled's engines."""
import json
import os
import subprocess

from conftest import FIXTURES, REPO

FLOOR = os.path.join(os.path.dirname(os.environ.get("LEGIBLED", os.path.join(REPO, ".build", "debug", "legibled"))),
                     "legible-floor")


def floor(*flags, **env):
    run = subprocess.run([FLOOR, "--repeat", "1", "--warmup", "0", "--print-text", *flags,
                          os.path.join(FIXTURES, "camera-720p.jpg")],
                         env={**os.environ, "OMP_THREAD_LIMIT": "1", **env}, capture_output=True, text=True,
                         timeout=300, check=True)
    return json.loads(run.stdout), run.stderr


def test_regions_run_inline_and_read_the_same_text_as_through_libgomp():
    for flags in ((), ("--detector",)):
        inline, inline_text = floor(*flags)
        through_libgomp, libgomp_text = floor(*flags, LEGIBLE_OPENMP_REGIONS="libgomp")
        assert inline["openmp_regions_inline"] is True
        assert through_libgomp["openmp_regions_inline"] is False
        assert "Fresh Organic Coffee Beans" in inline_text and "Roasted in Portland" in inline_text, inline_text
        assert inline_text == libgomp_text


def test_more_than_one_openmp_thread_goes_to_libgomp():
    result, _ = floor(OMP_THREAD_LIMIT="2")
    assert result["openmp_regions_inline"] is False
