package tykoas

import (
	"encoding/json"
	"sort"
	"unicode/utf8"
)

// appendValue appends v as a json.Encoder with SetEscapeHTML(false) and SetIndent("", "  ") writes it (without
// the final newline), at the given depth. It reports false for a value it does not write the way encoding/json
// does (a Go type that decoding JSON does not produce, an invalid json.Number): the caller then uses
// encoding/json, which also reports the error, if there is one. tree_test.go compares the two.
func appendValue(dst []byte, v any, depth int) ([]byte, bool) {
	switch t := v.(type) {
	case nil:
		return append(dst, "null"...), true
	case bool:
		if t {
			return append(dst, "true"...), true
		}
		return append(dst, "false"...), true
	case string:
		return appendString(dst, t), true
	case json.Number:
		if !isValidNumber(string(t)) {
			return dst, false // "" (written as 0) and invalid literals (an error) are left to encoding/json
		}
		return append(dst, t...), true
	case map[string]any:
		if t == nil {
			return append(dst, "null"...), true
		}
		if len(t) == 0 {
			return append(dst, "{}"...), true
		}
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		dst = append(dst, '{')
		for i, k := range keys {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendNewline(dst, depth+1)
			dst = appendString(dst, k)
			dst = append(dst, ':', ' ')
			var ok bool
			if dst, ok = appendValue(dst, t[k], depth+1); !ok {
				return dst, false
			}
		}
		dst = appendNewline(dst, depth)
		return append(dst, '}'), true
	case []any:
		if t == nil {
			return append(dst, "null"...), true
		}
		if len(t) == 0 {
			return append(dst, "[]"...), true
		}
		dst = append(dst, '[')
		for i, e := range t {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendNewline(dst, depth+1)
			var ok bool
			if dst, ok = appendValue(dst, e, depth+1); !ok {
				return dst, false
			}
		}
		dst = appendNewline(dst, depth)
		return append(dst, ']'), true
	}
	return dst, false
}

func appendNewline(dst []byte, depth int) []byte {
	dst = append(dst, '\n')
	for range depth {
		dst = append(dst, ' ', ' ')
	}
	return dst
}

const hex = "0123456789abcdef"

// appendString is encoding/json's appendString with escapeHTML false (Go 1.26): control characters, '"' and
// '\\' escaped, invalid UTF-8 replaced by \ufffd, U+2028 and U+2029 escaped.
func appendString(dst []byte, src string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(src); {
		if b := src[i]; b < utf8.RuneSelf {
			if b >= 0x20 && b != '"' && b != '\\' {
				i++
				continue
			}
			dst = append(dst, src[start:i]...)
			switch b {
			case '\\', '"':
				dst = append(dst, '\\', b)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hex[b>>4], hex[b&0xF])
			}
			i++
			start = i
			continue
		}
		c, size := utf8.DecodeRuneInString(src[i:])
		if c == utf8.RuneError && size == 1 {
			dst = append(dst, src[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if c == '\u2028' || c == '\u2029' {
			dst = append(dst, src[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hex[c&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, src[start:]...)
	return append(dst, '"')
}

// isValidNumber is encoding/json's check of a number literal (RFC 7159 section 6).
func isValidNumber(s string) bool {
	if s == "" {
		return false
	}
	if s[0] == '-' {
		s = s[1:]
		if s == "" {
			return false
		}
	}
	switch {
	default:
		return false
	case s[0] == '0':
		s = s[1:]
	case '1' <= s[0] && s[0] <= '9':
		s = s[1:]
		for len(s) > 0 && '0' <= s[0] && s[0] <= '9' {
			s = s[1:]
		}
	}
	if len(s) >= 2 && s[0] == '.' && '0' <= s[1] && s[1] <= '9' {
		s = s[2:]
		for len(s) > 0 && '0' <= s[0] && s[0] <= '9' {
			s = s[1:]
		}
	}
	if len(s) >= 2 && (s[0] == 'e' || s[0] == 'E') {
		s = s[1:]
		if s[0] == '+' || s[0] == '-' {
			s = s[1:]
			if s == "" {
				return false
			}
		}
		for len(s) > 0 && '0' <= s[0] && s[0] <= '9' {
			s = s[1:]
		}
	}
	return s == ""
}
