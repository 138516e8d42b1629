// Package fn wires the stages of the render into a kyaml ResourceList processor:
//
//	read → attachment → translate → status and emit
//
// and owns what a KRM function must do at its boundary: the function config, the results (one per condition
// that is not as it should be, and one per item that cannot be read), and the error that makes the process exit
// non-zero when a result reaches failOn. The rules themselves live in the stage packages.
package fn
