package plan_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/gateway2tyk/gateway2tyk/sync/plan"
)

// What Tyk v5.14.0 (and the 5.4 line) listed for a document it was sent: authToken's header left out,
// tagHeaders in lower case, the operations under /{rest:.*} that ignore authentication listed again under /{rest}.
func TestEqualAsTykLists(t *testing.T) {
	sent := `{"paths":{"/{rest:.*}":{"get":{"operationId":"get-below","responses":{}}}},
"x-tyk-api-gateway":{"server":{"authentication":{"enabled":true,"securitySchemes":{"authToken":{"enabled":true,"header":{"enabled":true,"name":"Authorization"}}}}},
"middleware":{"global":{"trafficLogs":{"enabled":true,"tagHeaders":["X-Request-Id"]}},"operations":{"get-below":{"ignoreAuthentication":{"enabled":true}}}}}}`
	listed := `{"paths":{"/{rest:.*}":{"get":{"operationId":"get-below","responses":{}}},
"/{rest}":{"get":{"operationId":"{rest:.*}GET","responses":{"default":{"description":""}}},"parameters":[{"in":"path","name":"rest"}]}},
"x-tyk-api-gateway":{"server":{"authentication":{"enabled":true,"securitySchemes":{"authToken":{"enabled":true}}}},
"middleware":{"global":{"trafficLogs":{"enabled":true,"tagHeaders":["x-request-id"]}},"operations":{"get-below":{"ignoreAuthentication":{"enabled":true}},"{rest:.*}GET":{"ignoreAuthentication":{"enabled":true}}}}}}`
	assert.True(t, plan.Equal([]byte(sent), []byte(listed)))

	// An operation someone added is a change, and so is another tag header.
	added := `{"paths":{"/{rest:.*}":{"get":{"operationId":"get-below","responses":{}}},"/admin":{"get":{"operationId":"admin","responses":{}}}},
"x-tyk-api-gateway":{"server":{"authentication":{"enabled":true,"securitySchemes":{"authToken":{"enabled":true}}}},
"middleware":{"global":{"trafficLogs":{"enabled":true,"tagHeaders":["x-request-id"]}},"operations":{"get-below":{"ignoreAuthentication":{"enabled":true}}}}}}`
	assert.False(t, plan.Equal([]byte(sent), []byte(added)))
	other := `{"paths":{"/{rest:.*}":{"get":{"operationId":"get-below","responses":{}}}},
"x-tyk-api-gateway":{"server":{"authentication":{"enabled":true,"securitySchemes":{"authToken":{"enabled":true}}}},
"middleware":{"global":{"trafficLogs":{"enabled":true,"tagHeaders":["x-tenant"]}},"operations":{"get-below":{"ignoreAuthentication":{"enabled":true}}}}}}`
	assert.False(t, plan.Equal([]byte(sent), []byte(other)))
}
