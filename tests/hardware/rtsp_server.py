"""A real RTSP server for the tests (GStreamer's gst-rtsp-server, Debian's python3-gst-1.0): serves the
JPEG frames of a recorded session as RTP/JPEG at rtsp://127.0.0.1:PORT/table until killed.

    /usr/bin/python3 tests/hardware/rtsp_server.py PORT FRAMES_DIR
"""

import sys

import gi

gi.require_version("Gst", "1.0")
gi.require_version("GstRtspServer", "1.0")
from gi.repository import GLib, Gst, GstRtspServer  # noqa: E402

port, frames = sys.argv[1], sys.argv[2]
Gst.init(None)
server = GstRtspServer.RTSPServer()
server.set_address("127.0.0.1")
server.set_service(port)
factory = GstRtspServer.RTSPMediaFactory()
factory.set_launch(
    f'( multifilesrc location="{frames}/%05d.jpg" index=1 loop=true '
    'caps="image/jpeg,framerate=10/1" ! jpegparse ! rtpjpegpay name=pay0 pt=26 )'
)
factory.set_shared(True)
server.get_mount_points().add_factory("/table", factory)
server.attach(None)
print(f"rtsp://127.0.0.1:{port}/table", flush=True)
GLib.MainLoop().run()
