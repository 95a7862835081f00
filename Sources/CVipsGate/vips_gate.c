// The gate in front of libvips (see vips_gate.h): a shared section per call, and one thread at a
// time that can close it to everyone else. Writer-preferring, so that a closing thread is not
// starved by a busy picker; re-entrant per thread, so a call made by a thread that already holds
// the gate never waits for a closing thread that waits for it.
#include "vips_gate.h"
#include <pthread.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t changed = PTHREAD_COND_INITIALIZER;
static int inside;        // threads in a libvips call
static int closing;       // a thread has closed the gate or waits for the calls in flight
static __thread int depth;
static __thread int alone;
static __thread unsigned long failures;
static __thread int units;

void cvips_gate_enter(void) {
    if (alone || depth++ > 0) return;
    pthread_mutex_lock(&lock);
    while (closing) pthread_cond_wait(&changed, &lock);
    inside++;
    pthread_mutex_unlock(&lock);
}

void cvips_gate_leave(void) {
    if (alone || --depth > 0) return;
    pthread_mutex_lock(&lock);
    if (--inside == 0 && closing) pthread_cond_broadcast(&changed);
    pthread_mutex_unlock(&lock);
}

void cvips_gate_close(void) {
    // Inside a call of its own, this thread would wait for itself.
    if (alone || depth > 0) return;
    pthread_mutex_lock(&lock);
    while (closing) pthread_cond_wait(&changed, &lock);
    closing = 1;
    while (inside > 0) pthread_cond_wait(&changed, &lock);
    pthread_mutex_unlock(&lock);
    alone = 1;
}

void cvips_gate_open(void) {
    if (!alone) return;
    alone = 0;
    pthread_mutex_lock(&lock);
    closing = 0;
    pthread_cond_broadcast(&changed);
    pthread_mutex_unlock(&lock);
}

int cvips_gate_alone(void) { return alone; }

void cvips_gate_note_failure(void) { failures++; }
unsigned long cvips_gate_failures(void) { return failures; }

int cvips_gate_begin_unit(void) { return units++; }
void cvips_gate_end_unit(void) { units--; }
