#ifndef SKWAD_CPICTURE_SHIM_H
#define SKWAD_CPICTURE_SHIM_H
// Decoders without setjmp: libpng's simplified API, TurboJPEG, libwebp's simple API.
#include <png.h>
#include <turbojpeg.h>
#include <webp/decode.h>
#endif
