// Package tyk owns the copies of Tyk's published files that the tests hold the project to: Tyk Gateway's
// x-tyk-api-gateway schema, the Dashboard's and the Gateway's API descriptions, and Tyk Operator's CRDs
// (README.md beside this file gives each one's source, version, licence and checksum). They are embedded, so a
// test in any package or module reads them by name, never by a path relative to where it runs. Tests only: the
// render and sync never import this package.
package tyk

import "embed"

// The files, by the names Files holds them under.
const (
	Schema             = "x-tyk-api-gateway.json"
	DashboardAPI       = "dashboard-swagger.yml"
	GatewayAPI         = "gateway-swagger.yml"
	OperatorCRDs       = "operator-1.4.2-crds" // a directory: one CRD per file
	OperatorContextCRD = OperatorCRDs + "/tyk.tyk.io_operatorcontexts.yaml"
	TykOasAPICRD       = OperatorCRDs + "/tyk.tyk.io_tykoasapidefinitions.yaml"
)

// Files holds every file of the table in README.md, and README.md itself, which says what they are.
//
//go:embed README.md LICENSE.md x-tyk-api-gateway.json dashboard-swagger.yml gateway-swagger.yml operator-1.4.2-crds
var Files embed.FS

// Read returns one of the files; the names are the constants above, so a failure is the build's, and it panics.
func Read(name string) []byte {
	data, err := Files.ReadFile(name)
	if err != nil {
		panic("third_party/tyk: " + err.Error())
	}
	return data
}
