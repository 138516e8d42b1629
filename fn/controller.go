package fn

import (
	"fmt"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/fn/framework"

	"github.com/gateway2tyk/gateway2tyk/fn/inventory"
)

// controllerResults warns when the input has GatewayClasses and none of them has the controllerName the render
// serves: then no Gateway or route is ours and nothing is rendered, which is a misspelt controllerName (in the
// RenderConfig or the classes) far more often than it is meant. The warning names both sides.
func controllerResults(inv *inventory.Inventory, controllerName string) framework.Results {
	if len(inv.ClassList) == 0 {
		return nil
	}
	var theirs []string
	for _, c := range inv.ClassList {
		if string(c.Spec.ControllerName) == controllerName {
			return nil
		}
		theirs = append(theirs, fmt.Sprintf("%s (%s)", c.Name, c.Spec.ControllerName))
	}
	return framework.Results{{Severity: framework.Warning, Field: &framework.Field{Path: "spec.controllerName"},
		Message: fmt.Sprintf("no GatewayClass has controllerName %s, the function config's spec.controllerName, so no "+
			"Gateway or route of the input is rendered; the input's GatewayClasses: %s", controllerName, strings.Join(theirs, ", "))}}
}
