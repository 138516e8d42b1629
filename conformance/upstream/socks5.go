package upstream

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
)

// The SOCKS version 5 handshake, as RFC 1928 gives it, for the one case Tyk's Go transport uses (a socks5://
// proxy URL): no authentication (method X'00', section 3) and the CONNECT command (section 4). Everything
// else is refused with the reply the RFC names (section 6).

const (
	socksVersion        = 5
	socksNoAuth         = 0x00
	socksNoAcceptable   = 0xff
	socksConnect        = 0x01
	socksAddrIPv4       = 0x01
	socksAddrDomain     = 0x03
	socksAddrIPv6       = 0x04
	socksSucceeded      = 0x00
	socksHostUnreach    = 0x04
	socksCmdUnsupported = 0x07
	socksAddrUnsupport  = 0x08
)

// socksTarget reads the client's greeting and CONNECT request and returns the destination it names (a domain
// name or an IP, and the port). It answers the greeting itself; the caller answers the request (socksReply).
func socksTarget(r *bufio.Reader, w io.Writer) (host string, port int, err error) {
	var head [2]byte // VER, NMETHODS
	if _, err := io.ReadFull(r, head[:]); err != nil {
		return "", 0, err
	}
	if head[0] != socksVersion {
		return "", 0, fmt.Errorf("SOCKS version %d, want 5", head[0])
	}
	methods := make([]byte, head[1])
	if _, err := io.ReadFull(r, methods); err != nil {
		return "", 0, err
	}
	method := byte(socksNoAcceptable)
	for _, m := range methods {
		if m == socksNoAuth {
			method = socksNoAuth
		}
	}
	if _, err := w.Write([]byte{socksVersion, method}); err != nil {
		return "", 0, err
	}
	if method == socksNoAcceptable {
		return "", 0, errors.New("the client offers no method without authentication")
	}
	var req [4]byte // VER, CMD, RSV, ATYP
	if _, err := io.ReadFull(r, req[:]); err != nil {
		return "", 0, err
	}
	if req[1] != socksConnect {
		socksReply(w, socksCmdUnsupported)
		return "", 0, fmt.Errorf("SOCKS command %d, want CONNECT", req[1])
	}
	switch req[3] {
	case socksAddrIPv4, socksAddrIPv6:
		ip := make(net.IP, map[byte]int{socksAddrIPv4: 4, socksAddrIPv6: 16}[req[3]])
		if _, err := io.ReadFull(r, ip); err != nil {
			return "", 0, err
		}
		host = ip.String()
	case socksAddrDomain:
		n, err := r.ReadByte()
		if err != nil {
			return "", 0, err
		}
		name := make([]byte, n)
		if _, err := io.ReadFull(r, name); err != nil {
			return "", 0, err
		}
		host = string(name)
	default:
		socksReply(w, socksAddrUnsupport)
		return "", 0, fmt.Errorf("SOCKS address type %d", req[3])
	}
	var p [2]byte
	if _, err := io.ReadFull(r, p[:]); err != nil {
		return "", 0, err
	}
	return host, int(binary.BigEndian.Uint16(p[:])), nil
}

// socksReply answers a CONNECT request with rep; the bound address is 0.0.0.0:0, which Go's client ignores.
func socksReply(w io.Writer, rep byte) error {
	_, err := w.Write([]byte{socksVersion, rep, 0, socksAddrIPv4, 0, 0, 0, 0, 0, 0})
	return err
}
