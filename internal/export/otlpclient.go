package export

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net/http"
	"os"

	"github.com/latgate/latgate/pkg/config"
)

// The TLS variables of the OpenTelemetry SDK specification: PEM files, the
// metrics-only variable in the generic one's stead when both are set.
const (
	envCertificate        = "OTEL_EXPORTER_OTLP_CERTIFICATE"
	envMetricsCertificate = "OTEL_EXPORTER_OTLP_METRICS_CERTIFICATE"
	envClientCert         = "OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE"
	envMetricsClientCert  = "OTEL_EXPORTER_OTLP_METRICS_CLIENT_CERTIFICATE"
	envClientKey          = "OTEL_EXPORTER_OTLP_CLIENT_KEY"
	envMetricsClientKey   = "OTEL_EXPORTER_OTLP_METRICS_CLIENT_KEY"
)

// otlpClient is the exporter's HTTP client. The SDK's own follows a
// collector's redirect to any origin with every header of
// OTEL_EXPORTER_OTLP_HEADERS (net/http drops only Authorization, and only
// for another host name: another port keeps it, X-Honeycomb-Team goes
// anywhere). This one follows a redirect within the collector's origin
// (scheme, host and port) only, as an endpoint's client does, and refuses
// any other naming where it pointed. Giving the SDK a client makes it skip
// its own TLS settings, so the client reads the same variables: a CA
// bundle, and a client certificate and key. getenv nil reads none.
func otlpClient(getenv func(string) string) (*http.Client, error) {
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tc, err := otlpTLS(getenv)
	if err != nil {
		return nil, err
	}
	tr.TLSClientConfig = tc
	return &http.Client{Transport: tr, CheckRedirect: collectorOrigin}, nil
}

// collectorOrigin is the exporter client's CheckRedirect.
func collectorOrigin(req *http.Request, via []*http.Request) error {
	from, to := config.Origin(via[0].URL.String()), config.Origin(req.URL.String())
	if to == "" || to != from {
		if to == "" {
			to = "a URL that is not http(s)"
		}
		return fmt.Errorf("the collector redirected to another origin, %s (its own is %s): latgate follows a collector's "+
			"redirect only within its scheme, host and port, so that the OTLP headers' credentials do not leave it; "+
			"name the collector where it serves", to, from)
	}
	if len(via) >= 5 {
		return errors.New("the collector redirected 5 times: stopped")
	}
	return nil
}

// otlpTLS is the TLS configuration the variables ask for, nil when they
// ask for none (the system's roots). A file that cannot be read or holds
// no certificate is an error naming the variable: an export that silently
// fell back to the system's roots would fail later, less clearly.
func otlpTLS(getenv func(string) string) (*tls.Config, error) {
	pick := func(metrics, generic string) (string, string) {
		if v := getenv(metrics); v != "" {
			return metrics, v
		}
		return generic, getenv(generic)
	}
	var tc *tls.Config
	if name, file := pick(envMetricsCertificate, envCertificate); file != "" {
		pem, err := os.ReadFile(file)
		if err != nil {
			return nil, fmt.Errorf("$%s: %w", name, err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("$%s: %s holds no PEM certificate", name, file)
		}
		tc = &tls.Config{RootCAs: pool}
	}
	certName, certFile := pick(envMetricsClientCert, envClientCert)
	keyName, keyFile := pick(envMetricsClientKey, envClientKey)
	switch {
	case certFile == "" && keyFile == "":
	case certFile == "" || keyFile == "":
		return nil, fmt.Errorf("$%s and $%s go together: a client certificate needs its key", certName, keyName)
	default:
		pair, err := tls.LoadX509KeyPair(certFile, keyFile)
		if err != nil {
			return nil, fmt.Errorf("$%s, $%s: %w", certName, keyName, err)
		}
		if tc == nil {
			tc = &tls.Config{}
		}
		tc.Certificates = []tls.Certificate{pair}
	}
	return tc, nil
}
