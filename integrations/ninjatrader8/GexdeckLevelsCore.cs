// gexdeck levels for NinjaTrader 8: the platform-free core (HTTP, JSON, level model).
// No NinjaTrader reference: the gexdeck test suite compiles this file with Mono's mcs and runs
// it against a live dashboard. C# 7 subset (no `using var`), .NET Framework 4.8 APIs only.
// Every number is parsed and printed with the invariant culture: a de-DE or fr-FR machine
// would otherwise read "7567.8" as 75678 or print "7567,8".
using System;
using System.Collections.Generic;
using System.Globalization;
using System.IO;
using System.Net.Http;
using System.Net.Http.Headers;
using System.Text;
using System.Threading.Tasks;

namespace Gexdeck
{
    public sealed class GexLevel
    {
        public string Id;
        public string Label;
        /// <summary>zero, pos, neg, spot or change: the colour of the line.</summary>
        public string Kind;
        /// <summary>null when the dashboard has no such level; Reason then says why.</summary>
        public double? Price;
        public string Reason;
    }

    public sealed class GexLevels
    {
        public string Ticker;
        public string PriceOf;
        public long AsOfUnixMs;
        public string AsOfEt;
        public double AgeSeconds;
        public bool Stale;
        public string StaleReason;
        public string Source;
        public double Spot;
        public List<GexLevel> Levels = new List<GexLevel>();
    }

    public sealed class FetchResult
    {
        public bool Ok;
        /// <summary>HTTP status, or 0 when the dashboard could not be reached.</summary>
        public int Status;
        public string Error;
        public GexLevels Levels;
    }

    /// <summary>Polls one feed URL; remembers the last good levels and when they last changed.</summary>
    public sealed class LevelsClient : IDisposable
    {
        private readonly HttpClient http;
        private readonly string url;
        private readonly string token;
        public GexLevels Last;
        public DateTime LastGoodUtc = DateTime.MinValue;
        public FetchResult LastResult;

        /// <param name="baseUrl">the dashboard, e.g. http://192.168.1.10:3000</param>
        public LevelsClient(string baseUrl, string ticker, string token, string query)
        {
            http = new HttpClient();
            http.Timeout = TimeSpan.FromSeconds(10);
            url = baseUrl.TrimEnd('/') + "/feed/v1/levels/" + Uri.EscapeDataString(ticker) +
                (string.IsNullOrEmpty(query) ? "" : "?" + query);
            this.token = token;
        }

        /// <summary>The token from a file (first line, trimmed): never an indicator property.</summary>
        public static string ReadToken(string path)
        {
            string text = File.ReadAllText(path, Encoding.UTF8);
            int nl = text.IndexOf('\n');
            return (nl >= 0 ? text.Substring(0, nl) : text).Trim();
        }

        public async Task<FetchResult> FetchAsync()
        {
            var result = new FetchResult();
            try
            {
                using (var req = new HttpRequestMessage(HttpMethod.Get, url))
                {
                    req.Headers.Authorization = new AuthenticationHeaderValue("Bearer", token);
                    using (var res = await http.SendAsync(req).ConfigureAwait(false))
                    {
                        string body = await res.Content.ReadAsStringAsync().ConfigureAwait(false);
                        result.Status = (int)res.StatusCode;
                        if (result.Status == 200)
                        {
                            result.Levels = Parse(body);
                            result.Ok = true;
                        }
                        else
                        {
                            result.Error = ErrorOf(body, result.Status);
                        }
                    }
                }
            }
            catch (Exception e)
            {
                result.Status = 0;
                result.Error = "dashboard not reachable: " + e.Message;
            }
            LastResult = result;
            if (result.Ok)
            {
                Last = result.Levels;
                if (!result.Levels.Stale) LastGoodUtc = DateTime.UtcNow;
            }
            return result;
        }

        /// <summary>What the chart shows under the lines: live, or why not and since when.</summary>
        public string StatusText(TimeZoneInfo zone)
        {
            if (LastResult == null) return "gexdeck: connecting...";
            string since = LastGoodUtc == DateTime.MinValue
                ? "never updated"
                : "not updating since " + TimeZoneInfo.ConvertTimeFromUtc(LastGoodUtc, zone)
                    .ToString("HH:mm:ss", CultureInfo.InvariantCulture);
            if (!LastResult.Ok)
            {
                string why = LastResult.Status == 401
                    ? "token refused (401): check the token file"
                    : LastResult.Error;
                return "gexdeck: " + since + " (" + why + ")";
            }
            if (LastResult.Levels.Stale)
                return "gexdeck: " + since + " (" + (LastResult.Levels.StaleReason ?? "stale") + ")";
            return "gexdeck: live, " + LastResult.Levels.AsOfEt;
        }

        private static string ErrorOf(string body, int status)
        {
            try
            {
                var o = Json.Parse(body) as Dictionary<string, object>;
                object e;
                if (o != null && o.TryGetValue("error", out e) && e is string) return status + ": " + (string)e;
            }
            catch (FormatException) { }
            return "HTTP " + status;
        }

        public static GexLevels Parse(string json)
        {
            var o = (Dictionary<string, object>)Json.Parse(json);
            var asOf = (Dictionary<string, object>)o["as_of"];
            var levels = new GexLevels
            {
                Ticker = (string)o["ticker"],
                PriceOf = (string)o["price_of"],
                AsOfUnixMs = (long)(double)asOf["unix_ms"],
                AsOfEt = (string)asOf["et"],
                AgeSeconds = (double)o["age_seconds"],
                Stale = (bool)o["stale"],
                StaleReason = o["stale_reason"] as string,
                Source = (string)o["source"],
                Spot = (double)o["spot"]
            };
            foreach (var item in (List<object>)o["levels"])
            {
                var l = (Dictionary<string, object>)item;
                levels.Levels.Add(new GexLevel
                {
                    Id = (string)l["id"],
                    Label = (string)l["label"],
                    Kind = (string)l["kind"],
                    Price = l["price"] == null ? (double?)null : (double)l["price"],
                    Reason = l["reason"] as string
                });
            }
            foreach (var item in (List<object>)o["max_change"])
            {
                var m = (Dictionary<string, object>)item;
                levels.Levels.Add(new GexLevel
                {
                    Id = "max_change_" + (string)m["window"],
                    Label = "Max Chg " + (string)m["window"],
                    Kind = "change",
                    Price = m["strike"] == null ? (double?)null : (double)m["strike"],
                    Reason = m["reason"] as string
                });
            }
            return levels;
        }

        /// <summary>A price as the dashboard writes it (dot decimal, whatever the culture).</summary>
        public static string Format(double value)
        {
            return value.ToString("0.######", CultureInfo.InvariantCulture);
        }

        public void Dispose()
        {
            http.Dispose();
        }
    }

    /// <summary>A small JSON reader: objects, arrays, strings, numbers (invariant), true/false/null.</summary>
    public static class Json
    {
        public static object Parse(string text)
        {
            int i = 0;
            object v = Value(text, ref i);
            Skip(text, ref i);
            if (i != text.Length) throw new FormatException("trailing characters at " + i);
            return v;
        }

        private static void Skip(string s, ref int i)
        {
            while (i < s.Length && char.IsWhiteSpace(s[i])) i++;
        }

        private static object Value(string s, ref int i)
        {
            Skip(s, ref i);
            if (i >= s.Length) throw new FormatException("unexpected end");
            char c = s[i];
            if (c == '{')
            {
                var o = new Dictionary<string, object>();
                i++;
                Skip(s, ref i);
                if (s[i] == '}') { i++; return o; }
                while (true)
                {
                    Skip(s, ref i);
                    string key = Str(s, ref i);
                    Skip(s, ref i);
                    if (s[i++] != ':') throw new FormatException("expected : at " + i);
                    o[key] = Value(s, ref i);
                    Skip(s, ref i);
                    if (s[i] == ',') { i++; continue; }
                    if (s[i] == '}') { i++; return o; }
                    throw new FormatException("expected , or } at " + i);
                }
            }
            if (c == '[')
            {
                var a = new List<object>();
                i++;
                Skip(s, ref i);
                if (s[i] == ']') { i++; return a; }
                while (true)
                {
                    a.Add(Value(s, ref i));
                    Skip(s, ref i);
                    if (s[i] == ',') { i++; continue; }
                    if (s[i] == ']') { i++; return a; }
                    throw new FormatException("expected , or ] at " + i);
                }
            }
            if (c == '"') return Str(s, ref i);
            if (s.Length - i >= 4 && string.CompareOrdinal(s, i, "true", 0, 4) == 0) { i += 4; return true; }
            if (s.Length - i >= 5 && string.CompareOrdinal(s, i, "false", 0, 5) == 0) { i += 5; return false; }
            if (s.Length - i >= 4 && string.CompareOrdinal(s, i, "null", 0, 4) == 0) { i += 4; return null; }
            int start = i;
            while (i < s.Length && "+-0123456789.eE".IndexOf(s[i]) >= 0) i++;
            if (start == i) throw new FormatException("unexpected character at " + i);
            return double.Parse(s.Substring(start, i - start), NumberStyles.Float, CultureInfo.InvariantCulture);
        }

        private static string Str(string s, ref int i)
        {
            if (s[i] != '"') throw new FormatException("expected a string at " + i);
            i++;
            var sb = new StringBuilder();
            while (s[i] != '"')
            {
                char c = s[i++];
                if (c != '\\') { sb.Append(c); continue; }
                char e = s[i++];
                switch (e)
                {
                    case 'n': sb.Append('\n'); break;
                    case 't': sb.Append('\t'); break;
                    case 'r': sb.Append('\r'); break;
                    case 'b': sb.Append('\b'); break;
                    case 'f': sb.Append('\f'); break;
                    case 'u':
                        sb.Append((char)int.Parse(s.Substring(i, 4), NumberStyles.HexNumber, CultureInfo.InvariantCulture));
                        i += 4;
                        break;
                    default: sb.Append(e); break;
                }
            }
            i++;
            return sb.ToString();
        }
    }
}
