"""The CUDA backend, when this build has one, is compiled against the pinned CCCL headers
(CMakeLists.txt, TOOLCHAIN.md): CCCL 3.0.x, nvcc 13.0's own copy, sorts signed keys wrongly.
CI builds with FLITSIM_CUDA=ON, so this runs there although no GPU is present."""
import pytest

import flitsim
from flitsim import _core as core

pytestmark = pytest.mark.skipif(not core.cuda_compiled(), reason="this build has no CUDA backend")


def test_cuda_backend_built_with_pinned_cccl():
    assert core.cuda_build().endswith("CCCL 3.1.4"), core.cuda_build()


def test_backend_status_names_the_build():
    assert f"built with {core.cuda_build()}" in flitsim.backend_status()
