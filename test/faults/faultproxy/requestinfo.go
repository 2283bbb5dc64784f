/*
Copyright 2026 The Berth Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package faultproxy

import (
	"net/http"
	"strings"
)

// attributes are a request's Kubernetes attributes, as the apiserver reads
// them from the method, the path and the query.
type attributes struct {
	Verb, Resource, Subresource, Namespace, Name string
}

// parseRequest reads the Kubernetes attributes of a request the way the
// apiserver does. Resource requests have paths such as
//
//	/api/v1/namespaces/NS/pods/NAME/binding
//	/apis/GROUP/VERSION/RESOURCE/NAME
//	/api/v1/watch/namespaces/NS/pods (the old watch form)
//
// and their verb follows from the method: GET is get on a name, list on a
// collection and watch with watch=true or 1; POST create, PUT update, PATCH
// patch, DELETE delete on a name and deletecollection on a collection. Any
// other path (/version, /healthz, /api, /apis/GROUP/VERSION) has only a
// verb, the method in lower case, as the apiserver's non-resource requests.
func parseRequest(r *http.Request) attributes {
	var a attributes
	parts := splitPath(r.URL.Path)
	var rest []string
	switch {
	case len(parts) >= 3 && parts[0] == "api":
		rest = parts[2:] // after api/VERSION
	case len(parts) >= 4 && parts[0] == "apis":
		rest = parts[3:] // after apis/GROUP/VERSION
	default:
		a.Verb = strings.ToLower(r.Method)
		return a
	}

	query := r.URL.Query()
	if (rest[0] == "watch" || rest[0] == "proxy") && len(rest) > 1 {
		// A verb in the path: /api/v1/watch/pods, /api/v1/proxy/nodes/n/...
		a.Verb = rest[0]
		rest = rest[1:]
	} else {
		switch r.Method {
		case http.MethodGet, http.MethodHead:
			a.Verb = "get"
		case http.MethodPost:
			a.Verb = "create"
		case http.MethodPut:
			a.Verb = "update"
		case http.MethodPatch:
			a.Verb = "patch"
		case http.MethodDelete:
			a.Verb = "delete"
		default:
			a.Verb = strings.ToLower(r.Method)
		}
		if a.Verb == "get" && isTrue(query.Get("watch")) {
			a.Verb = "watch"
		}
	}

	if rest[0] == "namespaces" && len(rest) > 1 {
		a.Namespace = rest[1]
		// /namespaces/NS/status and /namespaces/NS/finalize are
		// subresources of the namespace itself; anything else after the
		// namespace's name is a namespaced resource.
		if len(rest) > 2 && rest[2] != "status" && rest[2] != "finalize" {
			rest = rest[2:]
		}
	}
	a.Resource = rest[0]
	if len(rest) > 1 {
		a.Name = rest[1]
	}
	if len(rest) > 2 && a.Verb != "proxy" {
		// Only the first part after the name: the rest of a path such as
		// pods/NAME/proxy/some/path is the subresource's own.
		a.Subresource = rest[2]
	}

	if a.Name == "" {
		switch a.Verb {
		case "get":
			a.Verb = "list"
		case "delete":
			a.Verb = "deletecollection"
		}
		if a.Verb == "list" || a.Verb == "watch" {
			// A list or watch of one object, as informers on a single
			// object and leader election's watches send.
			a.Name = fieldSelectorName(query.Get("fieldSelector"))
		}
	}
	return a
}

// splitPath splits a URL path into its non-empty segments.
func splitPath(path string) []string {
	path = strings.Trim(path, "/")
	if path == "" {
		return nil
	}
	return strings.Split(path, "/")
}

// isTrue reports whether a boolean query parameter is set, as "true" or "1".
func isTrue(v string) bool {
	return v == "1" || strings.EqualFold(v, "true")
}

// fieldSelectorName returns the name a field selector requires with
// metadata.name=NAME or metadata.name==NAME, or "".
func fieldSelectorName(selector string) string {
	for term := range strings.SplitSeq(selector, ",") {
		name, ok := strings.CutPrefix(strings.TrimSpace(term), "metadata.name")
		if !ok {
			continue
		}
		if v, ok := strings.CutPrefix(name, "=="); ok {
			return v
		}
		if v, ok := strings.CutPrefix(name, "="); ok {
			return v
		}
	}
	return ""
}
