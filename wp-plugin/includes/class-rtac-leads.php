<?php
/**
 * Contacts left through the widget's lead form: POST /wp-json/rtac/v1/lead.
 *
 * Stored as private `rtac_lead` posts (visible to administrators only),
 * mailed to the site owner, and remembered for the visitor so the assistant
 * stops offering the form (`lead_captured` on later turns).
 *
 * Abuse: the route is rate limited like the chat, a filled honeypot field
 * (`website`, hidden in the widget) is answered as a success but nothing is
 * stored or mailed, and at most `leads_per_day` leads a day are stored and
 * mailed. A lead keeps keyed hashes of the visitor and conversation ids,
 * never the ids themselves.
 *
 * @package rtac
 */

defined( 'ABSPATH' ) || exit;

final class Rtac_Leads {

	/** The fields the lead list shows beside the name (the post title). */
	const LIST_COLUMNS = array( Rtac_Registry::META_LEAD_EMAIL, Rtac_Registry::META_LEAD_PHONE );

	private Rtac_Rate_Limiter $limiter;

	public function __construct( Rtac_Rate_Limiter $limiter ) {
		$this->limiter = $limiter;
	}

	public function register(): void {
		$cap = Rtac_Capability::MANAGE;
		register_post_type(
			Rtac_Registry::POST_TYPE_LEAD,
			Rtac_Admin::post_type_args(
				array(
					'labels'       => array(
						'name'          => __( 'Leads', 'rtac' ),
						'singular_name' => __( 'Lead', 'rtac' ),
						'edit_item'     => __( 'Lead', 'rtac' ),
						'search_items'  => __( 'Search leads', 'rtac' ),
						'not_found'     => __( 'No leads yet.', 'rtac' ),
						'all_items'     => __( 'Leads', 'rtac' ),
					),
					'supports'     => array( 'title' ),
					// Personal data: administrators only, and leads come from visitors, not from "Add new".
					'map_meta_cap' => false,
					'capabilities' => array(
						'edit_post'              => $cap,
						'read_post'              => $cap,
						'delete_post'            => $cap,
						'edit_posts'             => $cap,
						'edit_others_posts'      => $cap,
						'edit_private_posts'     => $cap,
						'edit_published_posts'   => $cap,
						'delete_posts'           => $cap,
						'delete_others_posts'    => $cap,
						'delete_private_posts'   => $cap,
						'delete_published_posts' => $cap,
						'read_private_posts'     => $cap,
						'publish_posts'          => $cap,
						'create_posts'           => 'do_not_allow',
					),
				)
			)
		);
	}

	/** @return WP_REST_Response|WP_Error */
	public function handle( WP_REST_Request $request ) {
		$visitor_id = Rtac_Visitor::ensure_id();
		$wait       = $this->limiter->hit( $this->limiter->client_ip(), $visitor_id );
		if ( $wait > 0 ) {
			return Rtac_Rate_Limiter::response( $wait );
		}

		$lead = $this->validate( $request );
		if ( is_wp_error( $lead ) ) {
			return $lead;
		}
		if ( '' !== trim( (string) $request->get_param( 'website' ) ) ) {
			// Only a script fills the hidden field. It is told it succeeded, so it has nothing to learn.
			return self::ok();
		}
		if ( ! $this->limiter->take_lead() ) {
			return new WP_Error(
				'rtac_lead_limit',
				__( 'We cannot take more requests through the chat today. Please contact us directly by phone or e-mail.', 'rtac' ),
				array( 'status' => 429 )
			);
		}
		$user_id                 = Rtac_Visitor::wp_user_id();
		$lead['visitor_id']      = $visitor_id;
		$lead['wp_user_id']      = $user_id;
		$post_id                 = $this->store( $lead );
		if ( is_wp_error( $post_id ) ) {
			return new WP_Error( 'rtac_lead_failed', __( 'Your details could not be saved. Please try again or contact us directly.', 'rtac' ), array( 'status' => 500 ) );
		}
		Rtac_Visitor::mark_lead_captured( $visitor_id, $user_id );
		$this->notify( $post_id, $lead );

		/**
		 * Fires after a lead was stored and mailed.
		 *
		 * @param int   $post_id The rtac_lead post.
		 * @param array $lead    {name, email, phone, message, conversation_id, visitor_id, wp_user_id}.
		 */
		do_action( 'rtac_lead_created', $post_id, $lead );

		return self::ok();
	}

	private static function ok(): WP_REST_Response {
		$response = new WP_REST_Response( array( 'ok' => true ), 200 );
		$response->header( 'Cache-Control', 'no-store, private' );
		return $response;
	}

	/** @return array|WP_Error The cleaned lead. */
	public function validate( WP_REST_Request $request ) {
		$name    = sanitize_text_field( (string) $request->get_param( 'name' ) );
		$email   = sanitize_email( (string) $request->get_param( 'email' ) );
		$phone   = sanitize_text_field( (string) $request->get_param( 'phone' ) );
		$message = sanitize_textarea_field( (string) $request->get_param( 'message' ) );

		if ( '' === $name ) {
			return self::error( 'rtac_invalid_name', __( 'Please tell us your name.', 'rtac' ) );
		}
		if ( '' !== trim( (string) $request->get_param( 'email' ) ) && ! is_email( $email ) ) {
			return self::error( 'rtac_invalid_email', __( 'Please check the e-mail address.', 'rtac' ) );
		}
		if ( '' !== $phone && ! preg_match( '/^[0-9+()\/.\s-]{5,40}$/', $phone ) ) {
			return self::error( 'rtac_invalid_phone', __( 'Please check the phone number.', 'rtac' ) );
		}
		if ( '' === $email && '' === $phone ) {
			return self::error( 'rtac_contact_required', __( 'Please leave an e-mail address or a phone number so we can reach you.', 'rtac' ) );
		}
		if ( true !== $request->get_param( 'consent' ) ) {
			return self::error( 'rtac_consent_required', __( 'Please agree to being contacted about your request.', 'rtac' ) );
		}
		return array(
			'name'            => mb_substr( $name, 0, 200 ),
			'email'           => $email,
			'phone'           => $phone,
			'message'         => mb_substr( $message, 0, Rtac_Protocol::MAX_MESSAGE ),
			'conversation_id' => sanitize_text_field( (string) $request->get_param( 'conversation_id' ) ),
		);
	}

	/**
	 * Stores a lead. `visitor_id` is the visitor's cookie id and
	 * `conversation_id` the sidecar's; only their keyed hashes are kept
	 * (Rtac_Visitor::sidecar_id(), conversation_ref()).
	 *
	 * @return int|WP_Error
	 */
	public function store( array $lead ) {
		return wp_insert_post(
			array(
				'post_type'   => Rtac_Registry::POST_TYPE_LEAD,
				'post_status' => 'private',
				'post_title'  => $lead['name'],
				'meta_input'  => array(
					Rtac_Registry::META_LEAD_NAME         => $lead['name'],
					Rtac_Registry::META_LEAD_EMAIL        => $lead['email'],
					Rtac_Registry::META_LEAD_PHONE        => $lead['phone'],
					Rtac_Registry::META_LEAD_MESSAGE      => $lead['message'],
					Rtac_Registry::META_LEAD_VISITOR      => Rtac_Visitor::sidecar_id( (string) ( $lead['visitor_id'] ?? '' ) ),
					Rtac_Registry::META_LEAD_CONVERSATION => self::conversation_ref( (string) ( $lead['conversation_id'] ?? '' ) ),
				),
			),
			true
		);
	}

	public function notify( int $post_id, array $lead ): bool {
		$to = (string) apply_filters( 'rtac_lead_recipient', get_option( 'admin_email' ), $lead );
		if ( ! is_email( $to ) ) {
			return false;
		}
		/* translators: %s: site name. */
		$subject = sprintf( __( '[%s] New contact request from the chat assistant', 'rtac' ), wp_specialchars_decode( get_bloginfo( 'name' ), ENT_QUOTES ) );
		$labels  = self::field_labels();
		$lines   = array();
		foreach ( array( 'name' => Rtac_Registry::META_LEAD_NAME, 'email' => Rtac_Registry::META_LEAD_EMAIL, 'phone' => Rtac_Registry::META_LEAD_PHONE ) as $field => $key ) {
			/* translators: 1: a field's label (Name, E-mail, Phone), 2: what the visitor entered. */
			$lines[] = sprintf( __( '%1$s: %2$s', 'rtac' ), $labels[ $key ], $lead[ $field ] );
		}
		array_push(
			$lines,
			'',
			$lead['message'],
			'',
			/* translators: %s: admin URL of the lead. */
			sprintf( __( 'Open in WordPress: %s', 'rtac' ), admin_url( 'post.php?post=' . $post_id . '&action=edit' ) )
		);
		$headers = array();
		if ( '' !== $lead['email'] ) {
			$name      = self::display_name( $lead['name'] );
			$headers[] = 'Reply-To: ' . ( '' !== $name ? $name . ' ' : '' ) . '<' . $lead['email'] . '>';
		}
		return (bool) wp_mail( $to, $subject, implode( "\n", $lines ), $headers );
	}

	/**
	 * The visitor's name as a mail display name: nothing that could end it and
	 * start another address (wp_mail() splits Reply-To at commas; `;` separates
	 * addresses for some clients; `<>`, quotes, `@`, `:` and parentheses have
	 * meaning in an address; newlines would start a header).
	 */
	public static function display_name( string $name ): string {
		$name = (string) preg_replace( '/[\x00-\x1f\x7f,;:<>"\'()\\\\@\[\]]+/u', ' ', $name );
		return trim( (string) preg_replace( '/\s+/u', ' ', $name ) );
	}

	/**
	 * Upgrade step: leads stored by 0.1.0 kept the visitor's cookie id and the
	 * conversation id as they were; they now keep their keyed hashes. Safe to
	 * run again (a hash is 64 hex digits; the ids it replaces are not).
	 */
	public static function hash_stored_references(): void {
		foreach ( self::ids( array() ) as $id ) {
			$visitor = (string) get_post_meta( (int) $id, Rtac_Registry::META_LEAD_VISITOR, true );
			if ( '' !== $visitor && ! preg_match( Rtac_Hash::PATTERN, $visitor ) ) {
				update_post_meta( (int) $id, Rtac_Registry::META_LEAD_VISITOR, Rtac_Visitor::sidecar_id( $visitor ) );
			}
			$conversation = (string) get_post_meta( (int) $id, Rtac_Registry::META_LEAD_CONVERSATION, true );
			if ( '' !== $conversation && ! preg_match( Rtac_Hash::PATTERN, $conversation ) ) {
				update_post_meta( (int) $id, Rtac_Registry::META_LEAD_CONVERSATION, self::conversation_ref( $conversation ) );
			}
		}
	}

	/** What a lead keeps of a conversation id: its keyed hash ('' for none). */
	public static function conversation_ref( string $conversation_id ): string {
		return '' === $conversation_id ? '' : Rtac_Hash::keyed( 'conversation', $conversation_id );
	}

	/**
	 * Lead post IDs left during this conversation (the conversation log links them).
	 *
	 * @return int[]
	 */
	public static function ids_by_conversation( string $conversation_id ): array {
		if ( '' === $conversation_id ) {
			return array();
		}
		return self::ids( self::with_meta( Rtac_Registry::META_LEAD_CONVERSATION, self::conversation_ref( $conversation_id ) ) );
	}

	/**
	 * Lead post IDs with this e-mail address (privacy requests), oldest first.
	 *
	 * @return int[]
	 */
	public static function ids_by_email( string $email, int $limit = -1, int $offset = 0 ): array {
		if ( '' === $email ) {
			return array();
		}
		return self::ids(
			array(
				'numberposts' => $limit,
				'offset'      => $offset,
				'orderby'     => 'ID',
				'order'       => 'ASC',
			) + self::with_meta( Rtac_Registry::META_LEAD_EMAIL, $email )
		);
	}

	/** get_posts() arguments for the leads whose meta $key is $value. */
	private static function with_meta( string $key, string $value ): array {
		return array(
			'meta_key'   => $key, // phpcs:ignore WordPress.DB.SlowDBQuery.slow_db_query_meta_key
			'meta_value' => $value, // phpcs:ignore WordPress.DB.SlowDBQuery.slow_db_query_meta_value
		);
	}

	/**
	 * The IDs of every lead (of any status), narrowed by $query (get_posts() arguments).
	 *
	 * @return int[]
	 */
	private static function ids( array $query ): array {
		$query += array(
			'post_type'        => Rtac_Registry::POST_TYPE_LEAD,
			'post_status'      => 'any',
			'fields'           => 'ids',
			'numberposts'      => -1,
			'suppress_filters' => true,
		);
		return array_map( 'intval', get_posts( $query ) );
	}

	/**
	 * What a visitor fills in, by meta key => its label: the one wording of each
	 * field in the widget's form, the lead's screen and list, its e-mail and the
	 * personal data export. (The visitor and conversation are kept as keyed
	 * hashes only: nothing to show.)
	 *
	 * @return array<string, string>
	 */
	public static function field_labels(): array {
		return array(
			Rtac_Registry::META_LEAD_NAME    => __( 'Name', 'rtac' ),
			Rtac_Registry::META_LEAD_EMAIL   => __( 'E-mail', 'rtac' ),
			Rtac_Registry::META_LEAD_PHONE   => __( 'Phone', 'rtac' ),
			Rtac_Registry::META_LEAD_MESSAGE => __( 'Message', 'rtac' ),
		);
	}

	/** A lead's stored fields. */
	public static function fields( int $post_id ): array {
		$out = array();
		foreach ( Rtac_Registry::post_meta()[ Rtac_Registry::POST_TYPE_LEAD ] as $key ) {
			$out[ $key ] = (string) get_post_meta( $post_id, $key, true );
		}
		return $out;
	}

	/* ---- wp-admin: read-only view ---- */

	public function add_meta_box(): void {
		add_meta_box( 'rtac-lead', __( 'Contact request', 'rtac' ), array( $this, 'render_meta_box' ), Rtac_Registry::POST_TYPE_LEAD, 'normal', 'high' );
	}

	public function render_meta_box( WP_Post $post ): void {
		$f = self::fields( $post->ID );
		echo '<table class="form-table" role="presentation"><tbody>';
		foreach ( self::field_labels() as $key => $label ) {
			echo '<tr><th scope="row">' . esc_html( $label ) . '</th><td>' . nl2br( esc_html( $f[ $key ] ) ) . '</td></tr>';
		}
		echo '</tbody></table>';
	}

	/** The lead list's own columns: named by their meta keys, so each shows that meta. */
	public function filter_columns( array $columns ): array {
		return Rtac_Admin::columns_before_date( $columns, array_intersect_key( self::field_labels(), array_flip( self::LIST_COLUMNS ) ) );
	}

	public function render_column( string $column, int $post_id ): void {
		if ( in_array( $column, self::LIST_COLUMNS, true ) ) {
			echo esc_html( (string) get_post_meta( $post_id, $column, true ) );
		}
	}

	private static function error( string $code, string $message ): WP_Error {
		return new WP_Error( $code, $message, array( 'status' => 400 ) );
	}
}
