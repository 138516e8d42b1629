package main

import (
	"os"
	"path/filepath"

	"github.com/gateway2tyk/gateway2tyk/fn/apiserver"
)

// cacheEnv names the directory where the judge remembers its verdicts between runs (see apiserver.Memory), or
// "off". Unset, it is gateway2tyk/ in the user's cache directory ($XDG_CACHE_HOME, else ~/.cache, on Linux).
const cacheEnv = "GATEWAY2TYK_CACHE"

// rememberVerdicts makes the judge remember its verdicts for this run, and returns what saves them at the end.
// A cache that cannot be found, read or written changes nothing but the time a render takes, so its errors are
// not reported: a KRM function's stderr is printed by kustomize and kpt on every build.
func rememberVerdicts() (save func()) {
	dir := os.Getenv(cacheEnv)
	switch dir {
	case "off":
		return func() {}
	case "":
		base, err := os.UserCacheDir()
		if err != nil {
			return func() {}
		}
		dir = filepath.Join(base, "gateway2tyk")
	}
	m, err := apiserver.Remember(dir)
	if err != nil {
		return func() {}
	}
	return func() { _ = m.Save() }
}
