# Runs a command as the leader of its own process group under a parent that reaps orphans slowly:
# it becomes a child subreaper (prctl PR_SET_CHILD_SUBREAPER), so processes orphaned when the
# group is killed are re-parented here, and it leaves them zombies for REAP_DELAY_S seconds
# before reaping — the state a killed postmaster is in for a while after `kill -9` of the group.
# Prints the command's pid on its first line.
import ctypes, os, sys, time

PR_SET_CHILD_SUBREAPER = 36
delay = float(os.environ.get('REAP_DELAY_S', '5'))
if ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
    sys.exit('prctl(PR_SET_CHILD_SUBREAPER) failed')
pid = os.fork()
if pid == 0:
    os.setsid()
    os.execvp(sys.argv[1], sys.argv[1:])
print(pid, flush=True)
_, status = os.waitpid(pid, 0)
time.sleep(delay)
try:
    while True:
        os.wait()
except ChildProcessError:
    pass
sys.exit(0)
