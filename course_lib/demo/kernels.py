"""`make present`'s kernels: one per open page, none left behind by a reload.

Voilà starts a kernel for every page it serves and asks it to shut down when the page unloads, but
it refuses that request (`403 '_xsrf' argument missing`), so every reload used to leave a kernel
(~580 MB) behind. `DemoKernelManager` shuts a kernel down itself once no page is connected to it:

  * a kernel a page was connected to, and is no longer (the page was closed or reloaded), after
    DISCONNECTED_S seconds;
  * a kernel no page ever connected to (a page left before it connected, or fetched by a script),
    ORPHAN_S seconds after Voilà handed it out (a page connects within seconds of arriving).

A page's connections are counted as its websocket opens and closes (`notify_connect` and
`notify_disconnect`, which jupyter_server's websocket calls), not by looking every `cull_interval`
seconds: a page reloaded between two looks would seem never to have connected, and its kernel
would wait ORPHAN_S instead of DISCONNECTED_S (20 quick reloads piled up 16 kernels).

Kernels waiting in Voilà's pool of preheated kernels (`--preheat_kernel`) are never culled (Voilà
checks that before this class is asked). With a pool of one, a reload takes the waiting kernel
(the page is there in seconds) and the pool runs the notebook in a fresh one for the next reload.

(With `course_lib.demo.forkserver` a kernel is a fork of a loaded process and ready in about a
second; what follows still holds where the kernels load the model themselves: macOS, Windows.)
That fresh kernel waits until every other kernel has been idle for QUIET_S seconds: the first page
arrives while the pool's first kernel is still loading the model, and Voilà refilled the pool one
second later, so two kernels imported torch and loaded the model at once and, on two cores, the
first page came after both (~30 s instead of ~15-20 s). For the same reason the launcher prints
the page's URL only once the pool's kernel is registered (this class logs POOL_STARTED then): a
page asked for before that gets a kernel of its own, which loads the model beside the pool's.
"""
from __future__ import annotations

import asyncio
import time

from jupyter_server.services.kernels.kernelmanager import AsyncMappingKernelManager
from traitlets import Float, default

DISCONNECTED_S = 5.0
ORPHAN_S = 30.0
QUIET_S = 3.0  # a new pool kernel starts once the others have been idle this long
QUIET_MAX_S = 180.0  # ... or after this long anyway
POOL_STARTED = "Preheated kernel started"  # logged when Voilà's pool has one (launch.py waits for it)


class DemoKernelManager(AsyncMappingKernelManager):
    """Shuts down kernels no page uses any more (see the module docstring)."""

    disconnected_s = Float(DISCONNECTED_S, config=True, help="cull a kernel this long after its page left")
    orphan_s = Float(ORPHAN_S, config=True, help="cull a kernel no page connected to after this long")
    quiet_s = Float(QUIET_S, config=True, help="start a pool kernel once the others were idle this long")

    @default("cull_idle_timeout")
    def _cull_idle_timeout(self):  # > 0 starts jupyter_server's periodic culler
        return int(DISCONNECTED_S)

    @default("cull_interval")
    def _cull_interval(self):
        return 1

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self._seen_connected: set[str] = set()
        self._pages: dict[str, int] = {}  # kernel id -> its open websockets (counted here, see notify_*)
        self._unused_since: dict[str, float] = {}  # kernel id -> since when no page uses it
        self._closing: set[str] = set()
        self._stopping = False

    async def start_kernel(self, **kwargs):
        """Start a kernel; one for Voilà's pool (VOILA_PREHEAT in its environment) waits until
        the kernels already running are quiet (see the module docstring)."""
        if (kwargs.get("env") or {}).get("VOILA_PREHEAT") == "True" and self.list_kernel_ids():
            await self._quiet()
        if self._stopping:
            raise RuntimeError("the server is stopping: no new kernel")
        kernel_id = await super().start_kernel(**kwargs)
        if (kwargs.get("env") or {}).get("VOILA_PREHEAT") == "True":
            # Voilà registers the kernel for its notebook as soon as this returns (no await between)
            asyncio.get_running_loop().call_soon(self.log.info, "%s: %s", POOL_STARTED, kernel_id)
        return kernel_id

    async def _quiet(self) -> None:
        """Return once every kernel has been idle for `quiet_s` seconds (at most QUIET_MAX_S)."""
        start = quiet_since = time.monotonic()
        while not self._stopping and time.monotonic() - start < QUIET_MAX_S:
            now = time.monotonic()
            if any(self._state(k) not in ("idle", "dead") for k in self.list_kernel_ids()):
                quiet_since = now
            elif now - quiet_since >= self.quiet_s:
                return
            await asyncio.sleep(0.25)

    async def shutdown_all(self, *args, **kwargs):
        self._stopping = True  # a pool kernel waiting to start gives up
        return await super().shutdown_all(*args, **kwargs)

    def _state(self, kernel_id: str) -> str | None:
        """The kernel's execution state ("starting", "busy", "idle", "dead"), None when it is gone."""
        try:
            return getattr(self.get_kernel(kernel_id), "execution_state", None)
        except KeyError:
            return None

    def notify_connect(self, kernel_id: str) -> None:
        """A page's websocket opened on `kernel_id`."""
        super().notify_connect(kernel_id)
        self._pages[kernel_id] = self._pages.get(kernel_id, 0) + 1
        self._seen_connected.add(kernel_id)
        self._unused_since.pop(kernel_id, None)

    def notify_disconnect(self, kernel_id: str) -> None:
        """A page's websocket closed: its kernel's wait starts now, whatever the culler's rhythm."""
        super().notify_disconnect(kernel_id)
        self._pages[kernel_id] = max(0, self._pages.get(kernel_id, 0) - 1)
        if self._pages[kernel_id] == 0:
            self._unused_since[kernel_id] = time.monotonic()

    async def cull_kernel_if_idle(self, kernel_id: str) -> None:
        """Called every `cull_interval` seconds for each kernel, except those ready in Voilà's pool
        (Voilà's own `cull_kernel_if_idle` skips them before calling this one)."""
        state = self._state(kernel_id)
        if state is None or kernel_id in self._closing:
            return
        if self._pages.get(kernel_id, 0) > 0:
            self._seen_connected.add(kernel_id)
            self._unused_since.pop(kernel_id, None)
            return
        if state not in ("idle", "dead"):  # working (a pool kernel running the notebook, or a page's)
            if kernel_id not in self._seen_connected:  # a page that left keeps its time
                self._unused_since.pop(kernel_id, None)
            return
        now = time.monotonic()
        since = self._unused_since.setdefault(kernel_id, now)
        wait = self.disconnected_s if kernel_id in self._seen_connected else self.orphan_s
        if state == "dead" or now - since >= wait:
            self.log.info("Shutting down kernel %s: no page uses it", kernel_id)
            self._closing.add(kernel_id)
            asyncio.ensure_future(self._shut(kernel_id))  # not awaited: the next kernel's check goes on

    async def _shut(self, kernel_id: str) -> None:
        try:
            await self.shutdown_kernel(kernel_id)
        finally:
            self._closing.discard(kernel_id)
            self._unused_since.pop(kernel_id, None)
            self._seen_connected.discard(kernel_id)
            self._pages.pop(kernel_id, None)
