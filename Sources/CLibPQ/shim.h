#ifndef TALLY_CLIBPQ_SHIM_H
#define TALLY_CLIBPQ_SHIM_H
#include <libpq-fe.h>
#endif
