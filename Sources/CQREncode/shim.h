#ifndef SKWAD_CQRENCODE_SHIM_H
#define SKWAD_CQRENCODE_SHIM_H
// libqrencode: QR codes for contact codes drawn in the terminal.
#include <qrencode.h>
#endif
