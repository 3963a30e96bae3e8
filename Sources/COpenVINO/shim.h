// OpenVINO's C API, from the PyPI wheel that scripts/install-openvino.sh unpacks under
// /usr/local/lib/legible/openvino-<version>/include (found through legible-openvino.pc).
#include <openvino/c/openvino.h>
