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

package apiwrite

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/flowcontrol"
	"k8s.io/utils/clock"
)

// Limits of waiting on a server that asks the client to come back later,
// as client-go's Request does: at most maxAttempts tries, each wait capped.
const (
	maxAttempts  = 10
	maxRetryWait = 10 * time.Second
	// maxErrorBody bounds what is read of a failed response.
	maxErrorBody = 64 << 10
)

// Poster creates objects of one API group version with plain HTTP POSTs
// over a client-go REST client's connection, for the scheduler's two writes
// per pod: the binding and the Scheduled event.
type Poster struct {
	client  *http.Client
	base    string
	limiter flowcontrol.RateLimiter
	encoder runtime.Encoder
	decoder runtime.Decoder
	clock   clock.Clock
}

// NewPoster returns a Poster that shares rc's HTTP client, base URL, group
// version and rate limiter, and sends protobuf, which every built-in type
// accepts. It returns nil when rc is nil or has no HTTP client (a fake
// client set's), so callers fall back to the typed client.
func NewPoster(rc *rest.RESTClient) (*Poster, error) {
	if rc == nil || rc.Client == nil {
		return nil, nil
	}
	info, ok := runtime.SerializerInfoForMediaType(scheme.Codecs.SupportedMediaTypes(), runtime.ContentTypeProtobuf)
	if !ok {
		return nil, errors.New("client-go's scheme has no protobuf serializer")
	}
	return &Poster{
		client:  rc.Client,
		base:    rc.Get().URL().String(),
		limiter: rc.GetRateLimiter(),
		encoder: scheme.Codecs.EncoderForVersion(info.Serializer, rc.APIVersion()),
		decoder: scheme.Codecs.UniversalDeserializer(),
		clock:   clock.RealClock{},
	}, nil
}

// Post creates obj at path, which is relative to the group version's root
// (for example "namespaces/default/pods/web-0/binding"). The response body
// is read and dropped on success; a failure becomes the API error the server
// described, as client-go reports it, with gr and name for a response
// without a Status. A server that answers 429 or 5xx with Retry-After is
// asked again after the wait it names, as client-go does.
func (p *Poster) Post(ctx context.Context, path string, obj runtime.Object, gr schema.GroupResource, name string) error {
	var body bytes.Buffer
	if err := p.encoder.Encode(obj, &body); err != nil {
		return fmt.Errorf("encoding %s %s: %w", gr, name, err)
	}
	url := p.base + "/" + path
	for attempt := 1; ; attempt++ {
		if p.limiter != nil {
			if err := p.limiter.Wait(ctx); err != nil {
				return fmt.Errorf("waiting for the client rate limiter: %w", err)
			}
		}
		wait, err := p.post(ctx, url, body.Bytes(), gr, name)
		if wait <= 0 || attempt == maxAttempts {
			return err
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting to retry %s %s: %w", gr, name, ctx.Err())
		case <-p.clock.After(wait):
		}
	}
}

// post sends one request. wait is how long the server asked to wait before
// a retry, zero when the result is final.
func (p *Poster) post(ctx context.Context, url string, body []byte, gr schema.GroupResource, name string) (wait time.Duration, err error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return 0, fmt.Errorf("building the request for %s %s: %w", gr, name, err)
	}
	req.Header.Set("Content-Type", runtime.ContentTypeProtobuf)
	req.Header.Set("Accept", runtime.ContentTypeProtobuf+", "+runtime.ContentTypeJSON)
	resp, err := p.client.Do(req)
	if err != nil {
		return 0, fmt.Errorf("posting %s %s: %w", gr, name, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		_, _ = io.Copy(io.Discard, resp.Body)
		return 0, nil
	}
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	retryAfter := retryAfterSeconds(resp)
	if retryAfter > 0 && (resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500) {
		wait = min(time.Duration(retryAfter)*time.Second, maxRetryWait)
	}
	return wait, p.responseError(resp.StatusCode, raw, retryAfter, gr, name)
}

// responseError turns a failed response into the API error it carries, or
// a generic one for the status code.
func (p *Poster) responseError(code int, raw []byte, retryAfter int, gr schema.GroupResource, name string) error {
	status := &metav1.Status{}
	if obj, _, err := p.decoder.Decode(raw, nil, status); err == nil {
		if s, ok := obj.(*metav1.Status); ok && s.Status != metav1.StatusSuccess {
			return &apierrors.StatusError{ErrStatus: *s}
		}
	}
	return apierrors.NewGenericServerResponse(code, http.MethodPost, gr, name, string(raw), retryAfter, true)
}

func retryAfterSeconds(resp *http.Response) int {
	v := resp.Header.Get("Retry-After")
	if v == "" {
		return 0
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return 0
	}
	return n
}
