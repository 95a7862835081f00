// gst-rtsp-server's headers, for the RTSP server shim (CRTSPServer) and nothing else.
#include <gst/rtsp-server/rtsp-server.h>
