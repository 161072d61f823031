// gexdeck levels for Sierra Chart: an ACSIL study. Every N seconds it GETs the dashboard's CSV
// feed with sc.MakeHTTPRequest (GET only, no headers, so the token is in the URL's ?token=),
// parses it with the plain C++ core (gexdeck_levels_core.h, culture-independent) and draws one
// labelled horizontal line per level. Stale or failing levels are drawn grey with
// "not updating since HH:MM:SS" in the chart's corner, never left looking live.
// Build: put both files in Sierra Chart's ACS_Source folder, Analysis >> Build Custom Studies DLL.
#include "sierrachart.h"
#include "gexdeck_levels_core.h"

SCDLLName("gexdeck levels")

namespace {
COLORREF colour_of(const std::string& kind, bool live) {
	if (!live) return RGB(128, 128, 128);
	if (kind == "zero") return RGB(0xb4, 0x8c, 0xff);
	if (kind == "pos") return RGB(0x2f, 0xbf, 0x71);
	if (kind == "neg") return RGB(0xef, 0x5b, 0x5b);
	return RGB(0x4d, 0xa3, 0xff);
}
}  // namespace

SCSFExport scsf_GexdeckLevels(SCStudyInterfaceRef sc) {
	SCInputRef url = sc.Input[0];
	SCInputRef ticker = sc.Input[1];
	SCInputRef token = sc.Input[2];
	SCInputRef future = sc.Input[3];
	SCInputRef seconds = sc.Input[4];

	if (sc.SetDefaults) {
		sc.GraphName = "gexdeck levels";
		sc.GraphRegion = 0;
		sc.AutoLoop = 0;
		sc.UpdateAlways = 1;
		url.Name = "Dashboard URL";
		url.SetString("http://127.0.0.1:3000");
		ticker.Name = "Ticker (SPX, NDX, ...)";
		ticker.SetString("SPX");
		token.Name = "Integration token (gxd_...)";
		token.SetString("");
		future.Name = "Convert to future (ES, NQ, RTY; empty = index prices)";
		future.SetString("ES");
		seconds.Name = "Refresh every (seconds, min 5)";
		seconds.SetInt(10);
		seconds.SetIntLimits(5, 3600);
		return;
	}

	int& requested = sc.GetPersistentInt(1);
	int& lastPoll = sc.GetPersistentInt(2);
	SCDateTime& lastLive = sc.GetPersistentSCDateTime(3);
	int now = sc.CurrentSystemDateTime.GetTimeInSeconds();

	if (requested == 1 && sc.HTTPResponse != "") {
		requested = 0;
		std::string body(sc.HTTPResponse.GetChars());
		gexdeck::Levels levels = gexdeck::parse_levels_csv(body);
		bool live = levels.error.empty() && !levels.stale;
		if (live) lastLive = sc.CurrentSystemDateTime;
		int line = 0;
		for (const gexdeck::Level& l : levels.levels) {
			if (!l.has_price || l.kind == "strike") continue;
			s_UseTool tool;
			tool.Clear();
			tool.ChartNumber = sc.ChartNumber;
			tool.DrawingType = DRAWING_HORIZONTALLINE;
			tool.LineNumber = 74000 + line++;
			tool.BeginValue = (float)l.price;
			tool.Color = colour_of(l.kind, live);
			tool.LineWidth = l.kind == "zero" ? 2 : 1;
			tool.Text = l.label.c_str();
			tool.DisplayHorizontalLineValue = 1;
			tool.AddMethod = UTAM_ADD_OR_ADJUST;
			sc.UseTool(tool);
		}
		SCString status;
		if (!levels.error.empty()) status = "gexdeck: feed error (401: check the token): ";
		else if (!live) status.Format("gexdeck: not updating since %s", sc.DateTimeToString(lastLive, FLAG_DT_COMPLETE_DATETIME).GetChars());
		else status.Format("gexdeck: live %s", levels.as_of_et.c_str());
		s_UseTool label;
		label.Clear();
		label.ChartNumber = sc.ChartNumber;
		label.DrawingType = DRAWING_TEXT;
		label.LineNumber = 74999;
		label.UseRelativeVerticalValues = 1;
		label.BeginDateTime = 5;
		label.BeginValue = 5;
		label.Region = 0;
		label.Text = status;
		label.Color = live ? RGB(200, 200, 200) : RGB(255, 165, 0);
		label.AddMethod = UTAM_ADD_OR_ADJUST;
		sc.UseTool(label);
	}

	if (requested == 0 && now - lastPoll >= seconds.GetInt()) {
		std::string target = gexdeck::feed_url(url.GetString(), ticker.GetString(), token.GetString(), future.GetString());
		if (sc.MakeHTTPRequest(target.c_str())) {
			requested = 1;
			lastPoll = now;
		}
	}
}
