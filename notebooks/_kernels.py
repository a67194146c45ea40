"""Notebook kernels over local IPC sockets instead of loopback TCP.

A kernel started the default way listens on TCP ports of 127.0.0.1, readable by any local
user who finds them, and ipykernel rightly warns "Kernel is running over TCP without
encryption". Over IPC the kernel's sockets are files inside a private folder (mode 0700)
that only this user can open, so there is nothing to warn about.

Used by scripts/investigate.py (papermill) and by notebooks/conftest.py (nbval).
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from jupyter_client.manager import AsyncKernelManager, KernelManager


def _ipc_options(folder: str) -> dict[str, Any]:
    # The socket files are named "<ip>-<port>"; ip must be an absolute path, or
    # jupyter_client puts "kernel-ipc-<port>" files in the current directory.
    return {"transport": "ipc", "ip": os.path.join(folder, "kernel")}


def ipc_kernel_managers(folder: str) -> tuple[type[KernelManager], type[AsyncKernelManager]]:
    """Kernel manager classes (blocking, async) whose kernels talk over IPC in ``folder``."""

    class IPCKernelManager(KernelManager):
        def __init__(self, **kwargs: Any) -> None:
            super().__init__(**{**_ipc_options(folder), **kwargs})

        async def _async_interrupt_kernel(self) -> None:
            if not self.shutting_down:  # see AsyncIPCKernelManager
                await super()._async_interrupt_kernel()

    class AsyncIPCKernelManager(AsyncKernelManager):
        def __init__(self, **kwargs: Any) -> None:
            super().__init__(**{**_ipc_options(folder), **kwargs})

        async def _async_interrupt_kernel(self) -> None:
            # jupyter_client sends SIGINT before every shutdown request; an idle kernel then
            # logs "ERROR | KeyboardInterrupt caught in kernel" now and then. The shutdown
            # request alone stops it (and kills it if it does not), so skip that interrupt.
            if not self.shutting_down:
                await super()._async_interrupt_kernel()

    return IPCKernelManager, AsyncIPCKernelManager


@contextmanager
def private_socket_folder() -> Iterator[str]:
    """A fresh folder only this user can enter, removed (with any socket left) on exit."""
    folder = tempfile.mkdtemp(prefix="roncho-kernels-")  # mkdtemp makes it mode 0700
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)
