#ifndef SKWAD_CSODIUM_SHIM_H
#define SKWAD_CSODIUM_SHIM_H
#include <sodium.h>
#endif
