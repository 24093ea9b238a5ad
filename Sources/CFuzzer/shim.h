/* CFuzzer: libFuzzer's driver entry point, for chartcast-fuzz built with -sanitize=fuzzer,address.
 * libFuzzer normally brings its own main(), but SwiftPM links every executable target with
 * main aliased to the module's @main entry point, so the two collide. chartcast-fuzz keeps its
 * @main and hands control to the driver through this function instead; libFuzzer has no header
 * that Swift could import for it, hence this declaration. Nothing links against it unless the
 * FUZZING condition is set (plain builds never call it). Nothing else lives here. */
#ifndef CHARTCAST_CFUZZER_SHIM_H
#define CHARTCAST_CFUZZER_SHIM_H

#include <stddef.h>
#include <stdint.h>

/* Parses libFuzzer's flags from argc/argv and runs `callback` on each input (fuzzing, or
 * replaying the files named); returns the process exit code. */
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

#endif
