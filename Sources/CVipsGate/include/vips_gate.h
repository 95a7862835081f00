#ifndef GPICK_VIPS_GATE_H
#define GPICK_VIPS_GATE_H

// libvips keeps one error buffer for the whole process: a failing call appends its lines, and
// whoever reads the buffer next takes them, whichever thread failed. With decodes running on
// several threads, a file's reason could be read by another thread (and lost), or another file's
// words read as this file's. Every libvips call gpick makes passes this gate (see CVips' shim.h),
// so a failure can be done again with the gate closed to everyone else: the buffer then holds
// that failure's words and nobody else's.

// Around each libvips call: waits while another thread has the gate to itself. Per thread and
// re-entrant; a thread that has the gate to itself passes.
void cvips_gate_enter(void);
void cvips_gate_leave(void);

// Closes the gate to every other thread and waits for the calls in flight to return. Never call
// it inside a libvips call (it would return without closing). One thread at a time has the gate: a second waits its turn.
void cvips_gate_close(void);
void cvips_gate_open(void);

// 1 while this thread has the gate to itself.
int cvips_gate_alone(void);

// How many libvips failures this thread has worded (the caller counts them): a unit of work that
// failed with libvips' words is done again alone, one that failed for its own reasons is not.
void cvips_gate_note_failure(void);
unsigned long cvips_gate_failures(void);

// Units of work nest (a file's embedded preview is decoded as a unit of its own): only the
// outermost is done again. Returns how many this thread was already in.
int cvips_gate_begin_unit(void);
void cvips_gate_end_unit(void);

#endif
