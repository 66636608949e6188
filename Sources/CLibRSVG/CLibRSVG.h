// librsvg 2.54 and cairo, for the include and link flags pkg-config gives (`librsvg-2.0`, which
// requires cairo). Only the CRSVG shim includes them; Swift code never sees a glib or cairo type.
#include <librsvg/rsvg.h>
