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

// Package metricsauth guards the manager's metrics endpoint: a request
// needs a bearer token that the apiserver accepts (a TokenReview) for a user
// the apiserver allows to get the path (a SubjectAccessReview of the
// non-resource URL), as controller-runtime's filters package does. It asks
// through client-go alone: controller-runtime's filter builds on
// k8s.io/apiserver's delegating authenticator and authorizer, which link CEL
// and the apiserver's admission machinery into the binary and more than
// double its size, and with it the memory its mapped pages take.
package metricsauth

import (
	"context"
	"crypto/sha256"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/go-logr/logr"
	authnv1 "k8s.io/api/authentication/v1"
	authzv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	authnclient "k8s.io/client-go/kubernetes/typed/authentication/v1"
	authzclient "k8s.io/client-go/kubernetes/typed/authorization/v1"
	"k8s.io/client-go/rest"
	"k8s.io/utils/clock"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
)

// The secure metrics endpoint asks the apiserver who calls and whether it may.
//
// +kubebuilder:rbac:groups=authentication.k8s.io,resources=tokenreviews,verbs=create
// +kubebuilder:rbac:groups=authorization.k8s.io,resources=subjectaccessreviews,verbs=create

// Cache lifetimes, as controller-runtime's filter has them: an accepted
// token for a minute, an allowed request for five, a denied one for 30 s.
const (
	DefaultTokenTTL   = time.Minute
	DefaultAllowTTL   = 5 * time.Minute
	DefaultDenyTTL    = 30 * time.Second
	defaultReviewWait = 10 * time.Second
	// maxEntries bounds each cache; a full cache starts afresh.
	maxEntries = 1024
)

// Option configures a Filter.
type Option func(*Filter)

// WithClock sets the clock of the caches.
func WithClock(c clock.PassiveClock) Option { return func(f *Filter) { f.clock = c } }

// Filter checks metrics requests against the apiserver.
type Filter struct {
	tokens  authnclient.TokenReviewInterface
	reviews authzclient.SubjectAccessReviewInterface
	clock   clock.PassiveClock

	mu        sync.Mutex
	users     map[[sha256.Size]byte]cachedUser
	decisions map[string]cachedDecision
}

type cachedUser struct {
	user    authnv1.UserInfo
	ok      bool
	expires time.Time
}

type cachedDecision struct {
	allowed bool
	reason  string
	expires time.Time
}

// New returns a Filter that reviews tokens and access through the clients.
func New(tokens authnclient.TokenReviewInterface, reviews authzclient.SubjectAccessReviewInterface, opts ...Option) *Filter {
	f := &Filter{
		tokens:    tokens,
		reviews:   reviews,
		clock:     clock.RealClock{},
		users:     map[[sha256.Size]byte]cachedUser{},
		decisions: map[string]cachedDecision{},
	}
	for _, o := range opts {
		o(f)
	}
	return f
}

// Provider is a metricsserver.Options FilterProvider: it builds a Filter
// from the manager's REST config.
func Provider(cfg *rest.Config, httpClient *http.Client) (metricsserver.Filter, error) {
	authn, err := authnclient.NewForConfigAndClient(cfg, httpClient)
	if err != nil {
		return nil, fmt.Errorf("building the TokenReview client: %w", err)
	}
	authz, err := authzclient.NewForConfigAndClient(cfg, httpClient)
	if err != nil {
		return nil, fmt.Errorf("building the SubjectAccessReview client: %w", err)
	}
	return New(authn.TokenReviews(), authz.SubjectAccessReviews()).Wrap, nil
}

// Wrap returns handler behind the checks: 401 without an accepted token,
// 403 when the user may not get the path, 500 when the apiserver could not
// say.
func (f *Filter) Wrap(log logr.Logger, handler http.Handler) (http.Handler, error) {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		token, ok := bearerToken(req)
		if !ok {
			http.Error(w, "Unauthorized", http.StatusUnauthorized)
			return
		}
		user, ok, err := f.authenticate(req.Context(), token)
		if err != nil {
			log.Error(err, "Authenticating a metrics request")
			http.Error(w, "Authentication failed", http.StatusInternalServerError)
			return
		}
		if !ok {
			log.V(4).Info("Metrics request with a token the apiserver does not accept")
			http.Error(w, "Unauthorized", http.StatusUnauthorized)
			return
		}
		verb, path := strings.ToLower(req.Method), req.URL.Path
		allowed, reason, err := f.authorize(req.Context(), user, verb, path)
		if err != nil {
			msg := fmt.Sprintf("Authorization for user %s failed", user.Username)
			log.Error(err, msg)
			http.Error(w, msg, http.StatusInternalServerError)
			return
		}
		if !allowed {
			msg := fmt.Sprintf("Authorization denied for user %s", user.Username)
			log.V(4).Info(msg, "reason", reason)
			http.Error(w, msg, http.StatusForbidden)
			return
		}
		handler.ServeHTTP(w, req)
	}), nil
}

// bearerToken returns the request's bearer token.
func bearerToken(req *http.Request) (string, bool) {
	scheme, token, found := strings.Cut(strings.TrimSpace(req.Header.Get("Authorization")), " ")
	if !found || !strings.EqualFold(scheme, "bearer") {
		return "", false
	}
	token = strings.TrimSpace(token)
	return token, token != ""
}

// authenticate reviews the token, or answers from the cache; the cache keys
// are hashes, so it holds no tokens.
func (f *Filter) authenticate(ctx context.Context, token string) (authnv1.UserInfo, bool, error) {
	key := sha256.Sum256([]byte(token))
	now := f.clock.Now()
	f.mu.Lock()
	c, hit := f.users[key]
	f.mu.Unlock()
	if hit && now.Before(c.expires) {
		return c.user, c.ok, nil
	}
	ctx, cancel := context.WithTimeout(ctx, defaultReviewWait)
	defer cancel()
	review, err := f.tokens.Create(ctx, &authnv1.TokenReview{Spec: authnv1.TokenReviewSpec{Token: token}}, metav1.CreateOptions{})
	if err != nil {
		return authnv1.UserInfo{}, false, fmt.Errorf("creating a TokenReview: %w", err)
	}
	c = cachedUser{user: review.Status.User, ok: review.Status.Authenticated, expires: now.Add(DefaultTokenTTL)}
	f.mu.Lock()
	if len(f.users) >= maxEntries {
		clear(f.users)
	}
	f.users[key] = c
	f.mu.Unlock()
	return c.user, c.ok, nil
}

// authorize asks whether user may use verb on the non-resource path, or
// answers from the cache.
func (f *Filter) authorize(ctx context.Context, user authnv1.UserInfo, verb, path string) (bool, string, error) {
	key := decisionKey(user, verb, path)
	now := f.clock.Now()
	f.mu.Lock()
	c, hit := f.decisions[key]
	f.mu.Unlock()
	if hit && now.Before(c.expires) {
		return c.allowed, c.reason, nil
	}
	extra := make(map[string]authzv1.ExtraValue, len(user.Extra))
	for k, v := range user.Extra {
		extra[k] = authzv1.ExtraValue(v)
	}
	ctx, cancel := context.WithTimeout(ctx, defaultReviewWait)
	defer cancel()
	review, err := f.reviews.Create(ctx, &authzv1.SubjectAccessReview{Spec: authzv1.SubjectAccessReviewSpec{
		User:                  user.Username,
		UID:                   user.UID,
		Groups:                user.Groups,
		Extra:                 extra,
		NonResourceAttributes: &authzv1.NonResourceAttributes{Path: path, Verb: verb},
	}}, metav1.CreateOptions{})
	if err != nil {
		return false, "", fmt.Errorf("creating a SubjectAccessReview: %w", err)
	}
	ttl := DefaultDenyTTL
	if review.Status.Allowed {
		ttl = DefaultAllowTTL
	}
	c = cachedDecision{allowed: review.Status.Allowed, reason: review.Status.Reason, expires: now.Add(ttl)}
	f.mu.Lock()
	if len(f.decisions) >= maxEntries {
		clear(f.decisions)
	}
	f.decisions[key] = c
	f.mu.Unlock()
	return c.allowed, c.reason, nil
}

// decisionKey identifies a request's user and its verb and path.
func decisionKey(user authnv1.UserInfo, verb, path string) string {
	var b strings.Builder
	for _, s := range []string{user.Username, user.UID, verb, path} {
		b.WriteString(s)
		b.WriteByte(0)
	}
	groups := slices.Sorted(slices.Values(user.Groups))
	for _, g := range groups {
		b.WriteString(g)
		b.WriteByte(1)
	}
	keys := make([]string, 0, len(user.Extra))
	for k := range user.Extra {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		b.WriteString(k)
		b.WriteByte(2)
		for _, v := range user.Extra[k] {
			b.WriteString(v)
			b.WriteByte(3)
		}
	}
	return b.String()
}
