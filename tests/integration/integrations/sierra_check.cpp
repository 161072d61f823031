// Test driver of integrations/sierrachart/gexdeck_levels_core.h: does what the study does with
// sc.MakeHTTPRequest (a plain GET of the feed URL with ?token=, no headers) through a small
// POSIX socket shim, parses the body with the core and prints one `id=price` per level.
#include <arpa/inet.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <netinet/in.h>
#include <string>
#include <sys/socket.h>
#include <unistd.h>
#include "gexdeck_levels_core.h"

// GET http://127.0.0.1:<port><path>; returns the status and fills body (HTTP/1.0, no headers sent).
static int http_get(const std::string& url, std::string& body) {
	const std::string prefix = "http://127.0.0.1:";
	if (url.compare(0, prefix.size(), prefix) != 0) return -1;
	size_t slash = url.find('/', prefix.size());
	int port = std::stoi(url.substr(prefix.size(), slash - prefix.size()));
	std::string path = url.substr(slash);
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	sockaddr_in addr;
	std::memset(&addr, 0, sizeof addr);
	addr.sin_family = AF_INET;
	addr.sin_port = htons(port);
	inet_pton(AF_INET, "127.0.0.1", &addr.sin_addr);
	if (connect(fd, (sockaddr*)&addr, sizeof addr) != 0) return -1;
	std::string req = "GET " + path + " HTTP/1.0\r\nHost: 127.0.0.1:" + std::to_string(port) + "\r\n\r\n";
	if (write(fd, req.data(), req.size()) < 0) return -1;
	std::string raw;
	char buf[4096];
	ssize_t n;
	while ((n = read(fd, buf, sizeof buf)) > 0) raw.append(buf, n);
	close(fd);
	size_t end = raw.find("\r\n\r\n");
	if (end == std::string::npos) return -1;
	body = raw.substr(end + 4);
	return std::stoi(raw.substr(9, 3));
}

int main(int argc, char** argv) {
	if (argc < 4) return 2;
	std::string body;
	int status = http_get(gexdeck::feed_url(argv[1], argv[2], argv[3], ""), body);
	std::printf("http=%d\n", status);
	gexdeck::Levels levels = gexdeck::parse_levels_csv(body);
	if (!levels.error.empty()) {
		std::printf("error=%s\n", levels.error.c_str());
		return 0;
	}
	std::printf("stale=%d\n", levels.stale ? 1 : 0);
	for (const gexdeck::Level& l : levels.levels) {
		if (l.kind == "strike") continue;
		// Printed with integer arithmetic so the C locale cannot add its comma here either.
		if (l.has_price) {
			long long scaled = (long long)(l.price * 1000000 + (l.price < 0 ? -0.5 : 0.5));
			std::printf("%s=%s%lld.%06lld\n", l.id.c_str(), scaled < 0 ? "-" : "", llabs(scaled) / 1000000, llabs(scaled) % 1000000);
		} else {
			std::printf("%s=null:%s\n", l.id.c_str(), l.reason.c_str());
		}
	}
	return 0;
}
