#ifndef CLCMS_INTERNAL_H
#define CLCMS_INTERNAL_H

#include <lcms2.h>

/* A profile and the context it was made in (whose log handler keeps the last message). */
struct clcms_profile {
    cmsContext context;
    cmsHPROFILE handle;
};

#endif
