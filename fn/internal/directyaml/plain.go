package directyaml

import "strings"

// Plain reports whether s is certainly read back as a string by YAML 1.1 and 1.2 and is written as it is, with no
// quotes, by yaml.v3's emitter: it starts with a letter or "/", holds only letters, digits and . / _ -, and is not
// one of YAML 1.1's boolean or null words. A plain scalar is read as a number, timestamp or sexagesimal only when
// it starts with a digit, a sign or a dot, and as something other than a scalar, or written quoted, only when it
// holds an indicator (":", "#", "[", a space, ...) or starts with one; "/" is none of these. Anything else is not
// Plain, which never makes an answer wrong, only slower.
func Plain(s string) bool {
	if s == "" {
		return false
	}
	c := s[0]
	if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '/') {
		return false
	}
	for i := 1; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '/' || c == '_' || c == '-') {
			return false
		}
	}
	if len(s) > 5 {
		return true
	}
	switch strings.ToLower(s) {
	case "y", "yes", "n", "no", "true", "false", "on", "off", "null":
		return false // in any case, to be safe
	}
	return true
}
