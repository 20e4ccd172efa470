#!/usr/bin/env python3
"""Types into the real explorer from outside, as a keyboard would, and measures each burst's latency.

The explorer (started here with --trace-shown) runs in the X server of $DISPLAY. Keys go in through
the XTEST extension from this one long-lived process, so no program starts between the moment taken
and the key (xdotool's own start took 7 to 16 ms per key on this machine, and polling the log with a
new awk every 20 ms took the cores the model needed). The explorer's stderr is read by a blocking
thread: waiting costs no CPU. Latency = the time of the first frame that shows the analysis of the
text as it then stands (the explorer's wall clock) - the moment just before the burst's last key
was sent. Prints one JSON line: {"latencies_ms": [...], "forward_ms": [...], "analysis_ms": [...],
"thumbnails_ms": [...], "waited_ms": [...], "drawn_ms": [...]}, as the explorer measured the runs
shown: the worker's forward, analysis and thumbnails; the wait from the request to its run's start
(a stale run still stopping); and from the run's end to the end of the frame showing it.

  typing_x11.py BURSTS -- EXPLORER ARGS...
"""
import ctypes
import json
import queue
import re
import subprocess
import sys
import threading
import time

KEY_INTERVAL = 0.08    # seconds between the keys of a burst: a quick typist
PAUSE = 0.8            # after a burst's analysis is shown
TIMEOUT = 12.0         # seconds to wait for a frame showing a text's analysis
BURST = "word"         # four keys; the last one's latency is measured

SHOWN = re.compile(r"attnscope: shown ([0-9.]+) bytes ([0-9]+) forward_ms ([0-9.]+) analysis_ms ([0-9.]+) thumbnails_ms ([0-9.]+)"
                   r" waited_ms ([0-9.]+) drawn_ms ([0-9.]+)")
TIMINGS = ("forward_ms", "analysis_ms", "thumbnails_ms", "waited_ms", "drawn_ms")


class Keyboard:
    """Key presses and a click through XTEST, flushed at once."""

    def __init__(self):
        self.x11 = ctypes.CDLL("libX11.so.6")
        self.xtst = ctypes.CDLL("libXtst.so.6")
        self.x11.XOpenDisplay.restype = ctypes.c_void_p
        self.x11.XOpenDisplay.argtypes = [ctypes.c_char_p]
        self.x11.XStringToKeysym.restype = ctypes.c_ulong
        self.x11.XStringToKeysym.argtypes = [ctypes.c_char_p]
        self.x11.XKeysymToKeycode.restype = ctypes.c_ubyte
        self.x11.XKeysymToKeycode.argtypes = [ctypes.c_void_p, ctypes.c_ulong]
        self.x11.XFlush.argtypes = [ctypes.c_void_p]
        for f in (self.xtst.XTestFakeKeyEvent, self.xtst.XTestFakeButtonEvent):
            f.argtypes = [ctypes.c_void_p, ctypes.c_uint, ctypes.c_int, ctypes.c_ulong]
        self.xtst.XTestFakeMotionEvent.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_ulong]
        self.display = self.x11.XOpenDisplay(None)
        if not self.display:
            sys.exit("typing_x11: cannot open the X display (is DISPLAY set?)")

    def key(self, char):
        code = self.x11.XKeysymToKeycode(self.display, self.x11.XStringToKeysym(char.encode()))
        if code == 0:
            sys.exit(f"typing_x11: no key for {char!r} in this X server's keymap")
        self.xtst.XTestFakeKeyEvent(self.display, code, 1, 0)
        self.xtst.XTestFakeKeyEvent(self.display, code, 0, 0)
        self.x11.XFlush(self.display)

    def click(self, x, y):
        self.xtst.XTestFakeMotionEvent(self.display, -1, x, y, 0)
        self.xtst.XTestFakeButtonEvent(self.display, 1, 1, 0)
        self.xtst.XTestFakeButtonEvent(self.display, 1, 0, 0)
        self.x11.XFlush(self.display)


class ShownLog:
    """The explorer's 'shown' lines, read as they come; other lines kept for an error message."""

    def __init__(self, stream):
        self.shown = queue.Queue()
        self.tail = []
        threading.Thread(target=self._read, args=(stream,), daemon=True).start()

    def _read(self, stream):
        for line in stream:
            self.tail = (self.tail + [line.rstrip()])[-8:]
            m = SHOWN.search(line)
            if m:
                self.shown.put((float(m.group(1)), int(m.group(2)), [float(m.group(k)) for k in range(3, 3 + len(TIMINGS))]))
        self.shown.put(None)  # the explorer ended

    def wait_for(self, size):
        """The time of the first frame showing the analysis of a text of `size` bytes, and the
        worker's forward, analysis and thumbnail milliseconds for it."""
        deadline = time.monotonic() + TIMEOUT
        while True:
            try:
                item = self.shown.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                item = None
            if item is None:
                log = "\n".join(self.tail)
                sys.exit(f"typing_x11: no frame showed the analysis of a text of {size} bytes within {TIMEOUT:.0f} s; the explorer's log:\n{log}")
            if item[1] == size:
                return item[0], item[2]


def main():
    if len(sys.argv) < 4 or sys.argv[2] != "--":
        sys.exit(__doc__)
    bursts = int(sys.argv[1])
    explorer = subprocess.Popen(sys.argv[3:] + ["--trace-shown"], stderr=subprocess.PIPE, text=True)
    try:
        log = ShownLog(explorer.stderr)
        file_arg = sys.argv.index("--file") + 1
        with open(sys.argv[file_arg], "rb") as f:
            size = len(f.read())
        log.wait_for(size)
        keyboard = Keyboard()
        keyboard.click(100, 100)  # into the editor's first line
        time.sleep(0.5)
        latencies, worker = [], []
        for _ in range(bursts):
            for char in BURST[:-1]:
                keyboard.key(char)
                time.sleep(KEY_INTERVAL)
            start = time.time()
            keyboard.key(BURST[-1])
            size += len(BURST)
            shown, timings = log.wait_for(size)
            latencies.append((shown - start) * 1000)
            worker.append(timings)
            time.sleep(PAUSE)
        result = {"latencies_ms": [round(x, 2) for x in latencies]}
        for k, name in enumerate(TIMINGS):
            result[name] = [t[k] for t in worker]
        print(json.dumps(result))
    finally:
        explorer.terminate()
        explorer.wait()


if __name__ == "__main__":
    main()
