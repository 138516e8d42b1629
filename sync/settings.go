package tyksync

import (
	"fmt"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/gateway2tyk/gateway2tyk/fn/tykapi"
	"github.com/gateway2tyk/gateway2tyk/sync/target"
)

// The keys of the environment and of an OperatorContext's Secret.
const (
	KeyMode     = "TYK_MODE"
	KeyURL      = "TYK_URL"
	KeyAuth     = "TYK_AUTH"
	KeyOrg      = "TYK_ORG"
	KeyInsecure = "TYK_TLS_INSECURE_SKIP_VERIFY"
)

// Flags are the target settings given on the command line ("" when not given).
type Flags struct {
	Mode, URL, Auth, Org string
}

// ContextValues returns the settings an OperatorContext gives, under the environment's key names: its env, with
// the keys of its Secret (secret may be nil) winning over it.
func ContextValues(oc *tykapi.OperatorContext, secret *corev1.Secret) map[string]string {
	out := map[string]string{}
	if oc != nil && oc.Spec.Env != nil {
		e := oc.Spec.Env
		set := func(k, v string) {
			if v != "" {
				out[k] = v
			}
		}
		set(KeyMode, e.Mode)
		set(KeyURL, e.URL)
		set(KeyAuth, e.Auth)
		set(KeyOrg, e.Org)
		if e.InsecureSkipVerify {
			out[KeyInsecure] = "true"
		}
	}
	if secret != nil {
		for _, k := range []string{KeyMode, KeyURL, KeyAuth, KeyOrg, KeyInsecure} {
			if v, ok := secret.Data[k]; ok && len(v) > 0 {
				out[k] = strings.TrimSpace(string(v))
			} else if v, ok := secret.StringData[k]; ok && v != "" {
				out[k] = strings.TrimSpace(v)
			}
		}
	}
	return out
}

// SettingsError is a setting that is missing or bad; its message says where it can be given.
type SettingsError struct{ Msg string }

func (e *SettingsError) Error() string { return e.Msg }

// Resolve picks each setting from the flags, else the environment, else the OperatorContext's values.
func Resolve(flags Flags, getenv func(string) string, fromContext map[string]string) (target.Settings, error) {
	pick := func(flag, key string) (string, string) {
		if flag != "" {
			return flag, "flag --" + strings.ToLower(strings.TrimPrefix(key, "TYK_"))
		}
		if v := getenv(key); v != "" {
			return v, "environment variable " + key
		}
		if v := fromContext[key]; v != "" {
			return v, "the OperatorContext's " + key
		}
		return "", ""
	}
	var s target.Settings
	var errs []string
	mode, from := pick(flags.Mode, KeyMode)
	if mode == "" {
		errs = append(errs, "no mode: give --mode pro|ce, TYK_MODE, or --operator-context")
	} else if m, err := target.ParseMode(mode); err != nil {
		errs = append(errs, "mode ("+from+") "+err.Error())
	} else {
		s.Mode = m
	}
	if s.URL, _ = pick(flags.URL, KeyURL); s.URL == "" {
		errs = append(errs, "no URL: give --url, TYK_URL, or --operator-context")
	}
	if s.Auth, _ = pick(flags.Auth, KeyAuth); s.Auth == "" {
		errs = append(errs, "no credential: give --auth, TYK_AUTH, or --operator-context")
	}
	s.Org, _ = pick(flags.Org, KeyOrg)
	if v, from := pick("", KeyInsecure); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			errs = append(errs, fmt.Sprintf("%s must be true or false (got %q in %s)", KeyInsecure, v, from))
		}
		s.InsecureSkipVerify = b
	}
	if len(errs) > 0 {
		return target.Settings{}, &SettingsError{Msg: "Tyk target: " + strings.Join(errs, "; ")}
	}
	return s, nil
}
