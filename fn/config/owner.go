package config

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
)

// FallbackOwner is the owner of an application whose place in a repository the render cannot see (a
// ResourceList on stdin outside kustomize, a directory without a .git above it, an application at the root of
// its repository), unless spec.owner says otherwise. It is the name every RenderConfig of the examples has.
const FallbackOwner = "gateway2tyk"

// maxOwnerLength is a label value's limit: the owner is the value of the label gateway2tyk.io/owner.
const maxOwnerLength = validation.LabelValueMaxLength

// OwnerError says what is wrong with an owner given in spec.owner, "" when nothing is: it must be a label value
// (at most 63 letters, digits, '-', '_' and '.', starting and ending with a letter or digit), since the render
// writes it as the label gateway2tyk.io/owner, which selects the application's ConfigMaps.
func OwnerError(v string) string {
	return strings.Join(validation.IsValidLabelValue(v), "; ")
}

// DefaultOwner is the owner of the rendered APIs when spec.owner is not set: the path of the application's
// directory dir inside its repository, with '/' written '.' (examples/basic is owned by "examples.basic",
// apps/team-a/overlays/prod by "apps.team-a.overlays.prod"). The repository is the nearest directory at or above
// dir that holds .git (a directory, or the file of a worktree or submodule). FallbackOwner when dir is "", when
// no repository holds it, or when it is the repository's root.
//
// Why a path: the owner must tell apart two applications that share one Tyk, and must be the same on every
// render of one application, wherever it runs. Their RenderConfigs usually look alike (those of examples/basic
// and examples/storefront are both named gateway2tyk), and so may their namespaces; what always differs between
// two applications of one repository (two Argo CD Applications, two CI jobs) is their directory. The path is
// taken inside the repository, never as the absolute path, so that a checkout anywhere (a laptop, CI, Argo CD's
// throw-away copy of the repository, which keeps .git unless reposerver.plugin.tar.exclusions drops it) gives
// the same owner; the environment (the working directory of the user, ARGOCD_APP_NAME) never enters it. Two
// repositories laid out alike, an application at a repository's root, or a copy without .git, need spec.owner
// (the Argo CD plugin's owner parameter sets it).
func DefaultOwner(dir string) string {
	if dir == "" {
		return FallbackOwner
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return FallbackOwner
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	for root := abs; ; {
		if _, err := os.Lstat(filepath.Join(root, ".git")); err == nil {
			rel, err := filepath.Rel(root, abs)
			if err != nil || rel == "." {
				return FallbackOwner
			}
			return OwnerOfPath(filepath.ToSlash(rel))
		}
		parent := filepath.Dir(root)
		if parent == root {
			return FallbackOwner
		}
		root = parent
	}
}

// OwnerOfPath makes an owner (a label value) of a '/'-separated path inside a repository: '/' becomes '.', any
// other character a label value cannot hold becomes '-', and what does not start or end with a letter or digit
// is trimmed. A path longer than a label value keeps its last part (the directories nearest the application
// tell it apart best) followed by '-' and 8 hex digits of the SHA-256 of the whole path, so that two long paths
// with the same end still differ.
func OwnerOfPath(rel string) string {
	var b strings.Builder
	for _, r := range rel {
		switch {
		case r == '/':
			b.WriteByte('.')
		case r < 0x80 && (isAlnum(byte(r)) || r == '-' || r == '_' || r == '.'):
			b.WriteRune(r)
		default:
			b.WriteByte('-')
		}
	}
	s := trimToAlnum(b.String())
	if len(s) > maxOwnerLength {
		sum := sha256.Sum256([]byte(rel))
		suffix := "-" + hex.EncodeToString(sum[:4])
		s = trimToAlnum(s[len(s)-(maxOwnerLength-len(suffix)):]) + suffix
	}
	if s == "" {
		return FallbackOwner
	}
	return s
}

func trimToAlnum(s string) string {
	start, end := 0, len(s)
	for start < end && !isAlnum(s[start]) {
		start++
	}
	for end > start && !isAlnum(s[end-1]) {
		end--
	}
	return s[start:end]
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// WithOwner is the spec with its owner decided: spec.owner when set, else DefaultOwner(dir), where dir is the
// application's directory ("" when the render cannot know it).
func (s Spec) WithOwner(dir string) Spec {
	if s.Owner == "" {
		s.Owner = DefaultOwner(dir)
	}
	return s
}
