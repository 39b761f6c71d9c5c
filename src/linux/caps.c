/* Placeholder until capability dropping lands. */
#include "linux.h"

#include <errno.h>

int sbx_caps_drop_all(void)
{
    return ENOSYS;
}
