/* nothp CMD ARGS...: runs CMD with transparent huge pages disabled for it and its children
   (prctl PR_SET_THP_DISABLE is inherited across fork and execve). */
#include <stdio.h>
#include <sys/prctl.h>
#include <unistd.h>
int main(int argc, char **argv) {
  if (argc < 2 || prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0) != 0) { perror("nothp"); return 2; }
  execvp(argv[1], argv + 1);
  perror("execvp");
  return 127;
}
