package meridian

import (
	"os/exec"
	"syscall"
)

// dieWithParent makes the server stop when the test process ends abruptly (a panic, a
// timeout), so that no server outlives its tests.
func dieWithParent(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
}
