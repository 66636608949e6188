// Exposes Debian's libheif (libheif-dev, 1.15) to Swift. libheif reports every failure as a
// `struct heif_error` value and never longjmps, so Swift calls it directly: no C shim is needed.
#include <libheif/heif.h>
