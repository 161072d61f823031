// gexdeck levels for Sierra Chart: the platform-free parsing core of GexdeckLevels.cpp.
// Plain C++11, no Sierra Chart header: the gexdeck test suite compiles it with g++ and feeds
// it the CSV of a live dashboard. Numbers are parsed by hand (never strtod/atof, which follow
// the C locale: a comma-decimal locale would read "7567.8" as 7567).
#pragma once
#include <string>
#include <vector>

namespace gexdeck {

struct Level {
	std::string id;
	std::string label;
	std::string kind;  // zero, pos, neg, spot, change, strike
	bool has_price = false;
	double price = 0;
	std::string reason;  // why there is no price
};

struct Levels {
	std::string ticker;
	std::string price_of;
	std::string as_of_et;
	double as_of_ms = 0;
	double age_seconds = 0;
	bool stale = true;
	std::string source;
	std::vector<Level> levels;
	std::string error;  // set when the body is not the feed's CSV
};

// "7567.8", "-12.5", "7590": a dot-decimal number, whatever the locale; false if not one.
inline bool parse_number(const std::string& s, double& out) {
	size_t i = 0;
	bool neg = false;
	if (i < s.size() && (s[i] == '-' || s[i] == '+')) neg = s[i++] == '-';
	double v = 0;
	bool digits = false;
	while (i < s.size() && s[i] >= '0' && s[i] <= '9') { v = v * 10 + (s[i++] - '0'); digits = true; }
	if (i < s.size() && s[i] == '.') {
		++i;
		double scale = 0.1;
		while (i < s.size() && s[i] >= '0' && s[i] <= '9') { v += (s[i++] - '0') * scale; scale /= 10; digits = true; }
	}
	if (!digits || i != s.size()) return false;
	out = neg ? -v : v;
	return true;
}

// One CSV record (RFC 4180 quoting) starting at pos; pos moves past its line end.
inline std::vector<std::string> csv_record(const std::string& text, size_t& pos) {
	std::vector<std::string> cells(1);
	bool quoted = false;
	while (pos < text.size()) {
		char c = text[pos++];
		if (quoted) {
			if (c == '"') {
				if (pos < text.size() && text[pos] == '"') { cells.back() += '"'; ++pos; }
				else quoted = false;
			} else cells.back() += c;
		} else if (c == '"') quoted = true;
		else if (c == ',') cells.emplace_back();
		else if (c == '\r') continue;
		else if (c == '\n') break;
		else cells.back() += c;
	}
	return cells;
}

// The feed's CSV (/feed/v1/levels/<T>.csv): id,label,kind,price,value,value_oi,reason.
inline Levels parse_levels_csv(const std::string& body) {
	Levels out;
	size_t pos = 0;
	std::vector<std::string> header = csv_record(body, pos);
	if (header.size() < 7 || header[0] != "id" || header[3] != "price" || header[6] != "reason") {
		out.error = "not the gexdeck levels CSV: " + body.substr(0, 120);
		return out;
	}
	while (pos < body.size()) {
		std::vector<std::string> r = csv_record(body, pos);
		if (r.size() < 7) continue;
		if (r[2] == "meta") {
			double v = 0;
			if (r[0] == "ticker") out.ticker = r[4];
			else if (r[0] == "price_of") out.price_of = r[4];
			else if (r[0] == "as_of_et") out.as_of_et = r[4];
			else if (r[0] == "source") out.source = r[4];
			else if (r[0] == "as_of" && parse_number(r[4], v)) out.as_of_ms = v;
			else if (r[0] == "age_seconds" && parse_number(r[4], v)) out.age_seconds = v;
			else if (r[0] == "stale") out.stale = r[4] != "0";
			continue;
		}
		Level l;
		l.id = r[0];
		l.label = r[1];
		l.kind = r[2];
		l.has_price = parse_number(r[3], l.price);
		l.reason = r[6];
		out.levels.push_back(l);
	}
	return out;
}

// The feed URL for sc.MakeHTTPRequest (GET only, no headers: the token goes in the query).
inline std::string feed_url(const std::string& base, const std::string& ticker, const std::string& token,
                            const std::string& future) {
	std::string url = base;
	while (!url.empty() && url[url.size() - 1] == '/') url.erase(url.size() - 1);
	url += "/feed/v1/levels/" + ticker + ".csv?token=" + token;
	if (!future.empty()) url += "&future=" + future;
	return url;
}

}  // namespace gexdeck
