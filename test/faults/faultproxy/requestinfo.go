package faultproxy

import (
	"net/http"
	"strings"
)

// attributes are a request's Kubernetes attributes, as the apiserver reads
// them from the method and the path.
type attributes struct {
	Verb, Resource, Subresource, Namespace, Name string
}

// parseRequest reads the Kubernetes attributes of a request: the verb from
// the method (GET on a collection is list, with watch=true or 1 watch), and
// namespace, resource, name and subresource from /api/v1/... or
// /apis/GROUP/VERSION/... paths. Other paths have only a verb.
func parseRequest(r *http.Request) attributes {
	var a attributes
	parts := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	var rest []string
	switch {
	case len(parts) >= 2 && parts[0] == "api":
		rest = parts[2:]
	case len(parts) >= 3 && parts[0] == "apis":
		rest = parts[3:]
	}
	if len(rest) >= 2 && rest[0] == "namespaces" {
		a.Namespace = rest[1]
		if len(rest) == 2 {
			// The namespace object itself.
			rest = []string{"namespaces", rest[1]}
		} else {
			rest = rest[2:]
		}
	}
	if len(rest) > 0 {
		a.Resource = rest[0]
	}
	if len(rest) > 1 {
		a.Name = rest[1]
	}
	if len(rest) > 2 {
		a.Subresource = strings.Join(rest[2:], "/")
	}
	if a.Resource == "namespaces" && a.Name != "" && a.Subresource == "" {
		a.Namespace = a.Name
	}

	q := r.URL.Query()
	watch := q.Get("watch") == "true" || q.Get("watch") == "1"
	switch r.Method {
	case http.MethodGet, http.MethodHead:
		switch {
		case watch:
			a.Verb = "watch"
		case a.Name == "":
			a.Verb = "list"
		default:
			a.Verb = "get"
		}
	case http.MethodPost:
		a.Verb = "create"
	case http.MethodPut:
		a.Verb = "update"
	case http.MethodPatch:
		a.Verb = "patch"
	case http.MethodDelete:
		if a.Name == "" {
			a.Verb = "deletecollection"
		} else {
			a.Verb = "delete"
		}
	default:
		a.Verb = strings.ToLower(r.Method)
	}
	return a
}
