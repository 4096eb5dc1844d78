#ifndef SKWAD_CEDIT_SHIM_H
#define SKWAD_CEDIT_SHIM_H
#include <stdio.h>
#include <editline/readline.h>

/* Swift 6 rejects libedit's mutable C globals; reach them through these. */
typedef char *(*skwad_completion_fn)(const char *, int);
static inline void skwad_set_completion(skwad_completion_fn fn) {
    rl_completion_entry_function = (rl_compentry_func_t *)fn;
}
/* Completion through rl_attempted_completion_function: libedit then inserts the matches as
   given (its entry-function path escapes spaces with backslashes, which the tokenizer does not
   read), and `over` keeps it from falling back to file names when there is no match. */
typedef char **(*skwad_attempted_fn)(const char *, int, int);
static inline void skwad_set_attempted_completion(skwad_attempted_fn fn) {
    rl_attempted_completion_function = (rl_completion_func_t *)fn;
}
static inline void skwad_set_completion_over(int over) { rl_attempted_completion_over = over; }
static inline int skwad_history_length(void) { return history_length; }
static inline void skwad_set_readline_name(const char *name) { rl_readline_name = (char *)name; }
/* The whole line being edited and the cursor (Tab completion looks at the words before it). */
static inline const char *skwad_line_buffer(void) { return rl_line_buffer; }
static inline int skwad_point(void) { return rl_point; }
#endif
