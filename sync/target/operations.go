package target

import (
	"net/http"
	"net/url"
	"strings"
)

// Operation is one operation of a Tyk API description: a method and a path template, spelled as in Tyk's
// published descriptions (third_party/tyk/dashboard-swagger.yml and gateway-swagger.yml), so that a test can
// check each against them.
type Operation struct {
	Method, Path string
}

func (o Operation) String() string { return o.Method + " " + o.Path }

// The operations the clients call, and nothing else: every request is built from one of them.
var (
	dashboardList      = Operation{http.MethodGet, "/api/apis"}
	dashboardCreate    = Operation{http.MethodPost, "/api/apis/oas"}
	dashboardGet       = Operation{http.MethodGet, "/api/apis/oas/{apiId}"}
	dashboardUpdate    = Operation{http.MethodPut, "/api/apis/oas/{apiId}"}
	dashboardDelete    = Operation{http.MethodDelete, "/api/apis/oas/{apiId}"}
	dashboardCertAdd   = Operation{http.MethodPost, "/api/certs"}
	dashboardCertGet   = Operation{http.MethodGet, "/api/certs/{certId}"}
	gatewayHello       = Operation{http.MethodGet, "/hello"}
	gatewayList        = Operation{http.MethodGet, "/tyk/apis/oas"}
	gatewayCreate      = Operation{http.MethodPost, "/tyk/apis/oas"}
	gatewayUpdate      = Operation{http.MethodPut, "/tyk/apis/oas/{apiID}"}
	gatewayDelete      = Operation{http.MethodDelete, "/tyk/apis/oas/{apiID}"}
	gatewayCertAdd     = Operation{http.MethodPost, "/tyk/certs"}
	gatewayCertGet     = Operation{http.MethodGet, "/tyk/certs/{certID}"}
	gatewayReloadGroup = Operation{http.MethodGet, "/tyk/reload/group"}
	gatewayReload      = Operation{http.MethodGet, "/tyk/reload"}
)

// Operations returns the operations the client of a mode calls.
func Operations(m Mode) []Operation {
	switch m {
	case ModePro:
		return []Operation{dashboardList, dashboardCreate, dashboardGet, dashboardUpdate, dashboardDelete,
			dashboardCertAdd, dashboardCertGet}
	case ModeCE:
		return []Operation{gatewayHello, gatewayList, gatewayCreate, gatewayUpdate, gatewayDelete, gatewayCertAdd,
			gatewayCertGet, gatewayReloadGroup, gatewayReload}
	}
	return nil
}

// request builds a call of the operation: param fills the path's template variable (the operations have at
// most one), query is added when not empty.
func (o Operation) request(param string, query url.Values, body []byte, contentType string) request {
	path := o.Path
	if i, j := strings.IndexByte(path, '{'), strings.IndexByte(path, '}'); i >= 0 && j > i {
		path = path[:i] + url.PathEscape(param) + path[j+1:]
	}
	if len(query) > 0 {
		path += "?" + query.Encode()
	}
	return request{method: o.Method, path: path, body: body, contentType: contentType}
}
