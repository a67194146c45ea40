"""Under nbval, the notebooks' kernels talk over IPC sockets too, as under the runner.

nbval starts each kernel with jupyter_client's KernelManager and offers no option for the
transport, so this swaps in the IPC manager from _kernels.py for the session and removes
its private socket folder afterwards. Loaded by pytest only when notebooks/ is collected.
"""

from __future__ import annotations

import sys
from contextlib import ExitStack
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _kernels

_STACK = ExitStack()


def pytest_configure(config: pytest.Config) -> None:
    try:
        import nbval.kernel
    except ImportError:  # nbval absent: nothing starts kernels
        return
    folder = _STACK.enter_context(_kernels.private_socket_folder())
    manager, _ = _kernels.ipc_kernel_managers(folder)
    previous = nbval.kernel.KernelManager
    nbval.kernel.KernelManager = manager
    _STACK.callback(setattr, nbval.kernel, "KernelManager", previous)


def pytest_unconfigure(config: pytest.Config) -> None:
    _STACK.close()
